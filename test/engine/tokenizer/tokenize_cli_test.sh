#!/usr/bin/env bash
# tokenize_cli_test.sh - engine-tokenize's command line: ids, --json,
# --decode, --chat, --no-special, --batch, stdin, and one-line errors with
# exit status 2. Uses the small tokenizer of the fuzz seeds, so it needs
# nothing installed. Usage: tokenize_cli_test.sh ENGINE_TOKENIZE TEST_DIR
set -uo pipefail
tool="$1"
tok="$2/fuzz/json/qwen3_shape.json"
failed=0
passed=0

# expect NAME EXPECTED_OUTPUT COMMAND...: stdout must equal EXPECTED_OUTPUT
# and the exit status be 0.
expect() {
  local name="$1" want="$2"
  shift 2
  local got
  got="$("$@" 2>&1)"
  local rc=$?
  if [ $rc -eq 0 ] && [ "$got" == "$want" ]; then
    passed=$((passed + 1))
  else
    echo "FAIL $name: rc=$rc"
    echo "  want: $want"
    echo "  got:  $got"
    failed=$((failed + 1))
  fi
}

# expect_error NAME MESSAGE_PART COMMAND...: exit status 2 and one line on
# stderr containing MESSAGE_PART, nothing on stdout.
expect_error() {
  local name="$1" part="$2"
  shift 2
  local out err rc
  out="$("$@" 2>/tmp/tokenize_cli_err.$$)"
  rc=$?
  err="$(cat /tmp/tokenize_cli_err.$$)"
  rm -f /tmp/tokenize_cli_err.$$
  if [ $rc -eq 2 ] && [ -z "$out" ] && [ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] &&
     [[ "$err" == *"$part"* ]]; then
    passed=$((passed + 1))
  else
    echo "FAIL $name: rc=$rc stdout='$out' stderr='$err'"
    failed=$((failed + 1))
  fi
}

# In the small vocabulary: bytes are ids 0..255 in byte order, "Ġt" 256,
# "he" 257, "Ġthe" 258, "in" 259, ... <|im_start|> 266, <|im_end|> 267,
# <think> 268.
expect "ids" "258 259" "$tool" "$tok" " thein"
expect "json" "[258,259]" "$tool" "$tok" --json " thein"
expect "stdin" "258 10" sh -c "printf ' the\n' | '$tool' '$tok'"
expect "special" "266 259 267" "$tool" "$tok" "<|im_start|>in<|im_end|>"
expect "no special" "60 124 105 109 95 101 110 100 124 62 268" \
  "$tool" "$tok" --no-special "<|im_end|><think>"
expect "decode" " the<|im_end|>" "$tool" "$tok" --decode "258 267"
expect "decode json" " thein" "$tool" "$tok" --decode "[258, 259]"
expect "decode skip" " the" "$tool" "$tok" --decode --no-special "258 267"
expect "chat" "266 117 115 101 114 10 259 267 10 266 97 115 115 105 115 116 97 110 116 10" \
  "$tool" "$tok" --chat "in"
expect "batch" '[[258],[],[266]]' sh -c \
  "printf '[\" the\", \"\", \"<|im_start|>\"]' | '$tool' '$tok' --batch"

expect_error "missing file" "cannot open" "$tool" /nonexistent/model "x"
expect_error "bad option" "--bogus" "$tool" "$tok" --bogus
expect_error "invalid utf-8" "input is not valid UTF-8 at byte 1" \
  sh -c "printf 'a\377' | '$tool' '$tok'"
expect_error "unknown id" "token id 9999 is not in the vocabulary" \
  "$tool" "$tok" --decode "1 9999"
expect_error "not an id" "'x1' is not a token id" "$tool" "$tok" --decode "1 x1"
expect_error "bad batch" "input: not a JSON array of strings" \
  sh -c "printf '{' | '$tool' '$tok' --batch"
expect_error "batch non-string" "input[0]: not a string" \
  sh -c "printf '[1]' | '$tool' '$tok' --batch"
expect_error "chat no-special" "--no-special cannot be combined with --chat" \
  "$tool" "$tok" --chat --no-special "x"
expect_error "not json" "not valid JSON" "$tool" "$0" "x"

echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
