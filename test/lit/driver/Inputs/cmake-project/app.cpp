#include "counter.h"
#include "words.h"

#include <iostream>

int main() {
  for (const std::string &word : split_words("compiler assisted profiling"))
    std::cout << word << ' ' << count_vowels(word.c_str()) << '\n';
  return 0;
}
