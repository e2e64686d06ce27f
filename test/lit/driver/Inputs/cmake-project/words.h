#ifndef WORDS_H
#define WORDS_H
#include <string>
#include <vector>
std::vector<std::string> split_words(const std::string &text);
#endif
