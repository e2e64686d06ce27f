// engine/tokenizer/pre_tokenizer.cpp - regex splits under PCRE2.
#include "engine/tokenizer/pre_tokenizer.h"

#include "engine/error.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

namespace engine {
namespace {

std::string pcre2_message(int code) {
  PCRE2_UCHAR buffer[256];
  int n = pcre2_get_error_message(code, buffer, sizeof(buffer));
  return n < 0 ? "error " + std::to_string(code)
               : std::string(reinterpret_cast<char *>(buffer), size_t(n));
}

/// Match data and, once a match has needed it, a JIT stack larger than the
/// default 32 KiB; owned by one split() call so encode() stays thread-safe.
struct MatchState {
  pcre2_match_data *data = nullptr;
  pcre2_match_context *context = nullptr;
  pcre2_jit_stack *stack = nullptr;
  ~MatchState() {
    pcre2_match_data_free(data);
    pcre2_match_context_free(context);
    pcre2_jit_stack_free(stack);
  }
};

} // namespace

struct PreTokenizer::Regex {
  pcre2_code *code = nullptr;
  bool jit = false;
  std::string source;
  ~Regex() { pcre2_code_free(code); }

  /// Finds the next non-empty match at or after `start`; false when none.
  bool next(std::string_view text, size_t start, MatchState &state,
            Span &match) const {
    auto *subject = reinterpret_cast<PCRE2_SPTR>(text.data());
    // The caller checked the UTF-8 once; PCRE2 would otherwise re-check the
    // whole subject on every call, quadratic over a long text.
    uint32_t options = PCRE2_NO_UTF_CHECK | PCRE2_NOTEMPTY;
    for (int attempt = 0;; ++attempt) {
      int rc = jit ? pcre2_jit_match(code, subject, text.size(), start, options,
                                     state.data, state.context)
                   : pcre2_match(code, subject, text.size(), start, options,
                                 state.data, state.context);
      if (rc == PCRE2_ERROR_NOMATCH)
        return false;
      if (rc == PCRE2_ERROR_JIT_STACKLIMIT && attempt == 0 && !state.stack) {
        state.stack =
            pcre2_jit_stack_create(32 * 1024, 64 * 1024 * 1024, nullptr);
        state.context = pcre2_match_context_create(nullptr);
        if (!state.stack || !state.context)
          throw Error(source + ": out of memory for the regex JIT stack");
        pcre2_jit_stack_assign(state.context, nullptr, state.stack);
        continue;
      }
      if (rc < 0)
        throw Error(source + ": regex match failed at byte " +
                    std::to_string(start) + " (" + pcre2_message(rc) + ")");
      PCRE2_SIZE *ov = pcre2_get_ovector_pointer(state.data);
      match = {size_t(ov[0]), size_t(ov[1] - ov[0])};
      return true;
    }
  }
};

PreTokenizer::PreTokenizer() = default;
PreTokenizer::~PreTokenizer() = default;
PreTokenizer::PreTokenizer(PreTokenizer &&) noexcept = default;
PreTokenizer &PreTokenizer::operator=(PreTokenizer &&) noexcept = default;

void PreTokenizer::add_split(const std::string &pattern, bool literal,
                             const std::string &source) {
  auto regex = std::make_unique<Regex>();
  regex->source = source;
  int error = 0;
  PCRE2_SIZE offset = 0;
  uint32_t options = PCRE2_UTF | PCRE2_UCP | (literal ? PCRE2_LITERAL : 0);
  regex->code =
      pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern.data()),
                    pattern.size(), options, &error, &offset, nullptr);
  if (!regex->code)
    throw Error(source + ": invalid regex at offset " + std::to_string(offset) +
                ": " + pcre2_message(error));
  // Without JIT support (or memory for it) the interpreter gives the same
  // matches, only slower.
  regex->jit = pcre2_jit_compile(regex->code, PCRE2_JIT_COMPLETE) == 0;
  splits_.push_back(std::move(regex));
}

void PreTokenizer::split(std::string_view text,
                         std::vector<Span> &pieces) const {
  size_t first_new = pieces.size();
  if (!text.empty())
    pieces.push_back({0, text.size()});
  if (splits_.empty() || text.empty())
    return;
  MatchState state;
  std::vector<Span> next;
  for (const auto &regex : splits_) {
    if (!state.data) {
      state.data = pcre2_match_data_create(1, nullptr);
      if (!state.data)
        throw Error(regex->source + ": out of memory for regex match data");
    }
    next.clear();
    for (size_t i = first_new; i < pieces.size(); ++i) {
      // Each piece is matched on its own, as a separate string: anchors and
      // lookarounds must not see the neighbouring pieces.
      std::string_view piece = text.substr(pieces[i].first, pieces[i].second);
      size_t at = 0;
      Span match;
      while (at < piece.size() && regex->next(piece, at, state, match)) {
        if (match.first > at)
          next.push_back({pieces[i].first + at, match.first - at});
        next.push_back({pieces[i].first + match.first, match.second});
        at = match.first + match.second;
      }
      if (at < piece.size())
        next.push_back({pieces[i].first + at, piece.size() - at});
    }
    pieces.resize(first_new);
    pieces.insert(pieces.end(), next.begin(), next.end());
  }
}

} // namespace engine
