// Tkrzw's HashDBM on the workload of `cargo bench --bench records` (benches/records.rs):
// N records of 8-byte keys and 100-byte values set in key order, then the file opened
// afresh and every key got once in a random order, twice (two shuffles). One thread.
// `tkrzw_dbm_perf sequence` gets its keys in the order they were set, which is also the
// order of the records in the file; veilkit's gets are in a random order, as here.
//
// Usage: random_gets N PATH [aes]. Prints "sets PASS1 PASS2" in operations per second.
// Built by the bench against the system's libtkrzw (Debian libtkrzw-dev, no cipher), or
// with -DWITH_AES against a Tkrzw source tree (1.0.32 has the AES record codec).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "tkrzw_dbm_hash.h"

static double since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

int main(int argc, char** argv) {
  if (argc < 3) return 2;
  const int n = std::atoi(argv[1]);
  const std::string path = argv[2];
  const bool aes = argc > 3 && std::string(argv[3]) == "aes";
  tkrzw::HashDBM::TuningParameters tp;
  tp.restore_mode = tkrzw::HashDBM::RESTORE_READ_ONLY;
  if (aes) {
#ifdef WITH_AES
    tp.record_comp_mode = tkrzw::HashDBM::RECORD_COMP_AES;
    tp.cipher_key = "0123456789abcdef0123456789abcdef";
#else
    return 3;
#endif
  }
  std::vector<std::string> keys(n);
  char kb[16];
  for (int i = 0; i < n; i++) {
    std::snprintf(kb, sizeof(kb), "%08d", i);
    keys[i] = kb;
  }
  double sets;
  {
    tkrzw::HashDBM dbm;
    if (dbm.OpenAdvanced(path, true, tkrzw::File::OPEN_TRUNCATE, tp) != tkrzw::Status::SUCCESS) {
      return 1;
    }
    std::string value(100, 'x');
    auto t = std::chrono::steady_clock::now();
    for (int i = 0; i < n; i++) {
      // The values of tkrzw_dbm_perf: letters varying with the record.
      for (int j = 0; j < 100; j++) value[j] = 'a' + (i + j) % (j % 2 ? 26 : 9);
      if (dbm.Set(keys[i], value) != tkrzw::Status::SUCCESS) return 1;
    }
    sets = n / since(t);
    if (dbm.Close() != tkrzw::Status::SUCCESS) return 1;
  }
  tkrzw::HashDBM dbm;
  if (dbm.OpenAdvanced(path, false, tkrzw::File::OPEN_DEFAULT, tp) != tkrzw::Status::SUCCESS) {
    return 1;
  }
  std::mt19937_64 rng(42);
  std::vector<int> order(n);
  for (int i = 0; i < n; i++) order[i] = i;
  std::string v;
  double pass[2];
  for (int p = 0; p < 2; p++) {
    std::shuffle(order.begin(), order.end(), rng);
    auto t = std::chrono::steady_clock::now();
    for (int i = 0; i < n; i++) {
      if (dbm.Get(keys[order[i]], &v) != tkrzw::Status::SUCCESS || v.size() != 100) return 1;
    }
    pass[p] = n / since(t);
  }
  std::printf("%.0f %.0f %.0f\n", sets, pass[0], pass[1]);
  return 0;
}
