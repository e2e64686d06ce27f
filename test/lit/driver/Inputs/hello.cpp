#include <iostream>

int main() {
  std::cout << "hello from C++\n";
  return 0;
}
