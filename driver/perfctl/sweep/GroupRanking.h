//===- GroupRanking.h - order groups and say the answer ---------*- C++ -*-===//
//
// Both analyses (speed bumps, virtual speedups) end the same way: groups in
// order of a key, most important first, and the one-line answer joining
// each group's verdict in that order.
//
//===----------------------------------------------------------------------===//
#ifndef PERFCC_DRIVER_PERFCTL_SWEEP_GROUPRANKING_H
#define PERFCC_DRIVER_PERFCTL_SWEEP_GROUPRANKING_H

#include <algorithm>
#include <cstddef>
#include <string>
#include <vector>

namespace perfcc::perfctl {

/// "name: verdict; ..." over \p groups in the order of \p ranking.
template <typename Group>
std::string answerOf(const std::vector<Group> &groups,
                     const std::vector<std::size_t> &ranking) {
  std::string answer;
  for (std::size_t i : ranking)
    answer += (answer.empty() ? "" : "; ") + groups[i].name + ": " +
              groups[i].verdict;
  return answer;
}

/// Fills \p ranking with the indexes of \p groups ordered by \p key (smaller
/// first; ties keep their order) and \p answer with "name: verdict; ...".
/// Group needs `name` and `verdict`.
template <typename Group, typename Key>
void rankGroups(const std::vector<Group> &groups, Key key,
                std::vector<std::size_t> &ranking, std::string &answer) {
  ranking.clear();
  for (std::size_t i = 0; i < groups.size(); ++i)
    ranking.push_back(i);
  std::stable_sort(ranking.begin(), ranking.end(),
                   [&](std::size_t l, std::size_t r) {
                     return key(groups[l]) < key(groups[r]);
                   });
  answer = answerOf(groups, ranking);
}

} // namespace perfcc::perfctl

#endif // PERFCC_DRIVER_PERFCTL_SWEEP_GROUPRANKING_H
