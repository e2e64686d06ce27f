#ifndef COUNTER_H
#define COUNTER_H
#ifdef __cplusplus
extern "C" {
#endif
int count_vowels(const char *text);
#ifdef __cplusplus
}
#endif
#endif
