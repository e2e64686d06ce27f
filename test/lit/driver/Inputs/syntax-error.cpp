// Does not compile: perfcc must hand clang's failure back unchanged.
int main() { return 0 }
