// A small SDK for Thirteen Arena bots in C++: one session with the arena, every match on it
// played at once, a lost stream resumed. A bot gives a policy; the SDK does the rest, and says
// on stderr when it connects, each time it tries again and why, and when it gives up.
#ifndef ARENA_SDK_H_
#define ARENA_SDK_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "arena/v1/bot_service.pb.h"

namespace arena_sdk {

struct Options {
  std::string server = "127.0.0.1:50051";  // HOST:PORT, or unix:PATH
  std::string token;
  std::vector<std::string> games;  // empty: every game
  uint32_t max_matches = 1;        // matches played at once
  int matches = 0;                 // stop after this many ended; 0: play on
  std::string client = "arena-sdk-cpp/0.1";
  int max_attempts = 20;           // give up after this many attempts in a row without a Welcome; 0: never
  double give_up_after = 120.0;    // give up after this many seconds without a Welcome; 0: never
};

// --server, --token, --games a,b, --max-matches N, --matches N, --max-attempts N,
// --give-up-after SECONDS; ARENA_SERVER and ARENA_TOKEN stand in for the first two (a hosted bot
// gets both). Exits with code 2 on a bad option.
Options ParseOptions(int argc, char** argv);

// A policy's choice: one of request.legal_actions() by id, and optionally a line of debug text
// about it (kept in the replay at this move, at most 1 KiB; shown to the bot's owner while the
// match runs and to everyone after it, never to the other seats).
struct Answer {
  uint32_t action = 0;
  std::string debug;
};

// The policy. It runs on a worker thread, at the same time as the policy of the session's other
// matches; `match` is that match's MatchStarted.
using Policy = std::function<Answer(const arena::v1::MatchStarted& match, const arena::v1::ActionRequest& request)>;

// Plays until `matches` matches have ended (exit code 0), the arena refuses the bot (2), or no
// Welcome came within `max_attempts` attempts or `give_up_after` seconds (1): a lost stream is
// resumed with backoff, 0.1 s doubling to 5 s, on a new channel each time.
int Play(const Options& options, const Policy& policy);

}  // namespace arena_sdk

#endif  // ARENA_SDK_H_
