// The session loop of the C++ SDK: see arena_sdk.h, and docs/PROTOCOL.md for the protocol.
#include "arena_sdk.h"

#include <grpcpp/grpcpp.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <deque>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>
#include <thread>
#include <tuple>
#include <utility>

#include "arena/v1/bot_service.grpc.pb.h"

namespace arena_sdk {
namespace {

using arena::v1::ActionRequest;
using arena::v1::BotService;
using arena::v1::ConnectRequest;
using arena::v1::ConnectResponse;
using arena::v1::MatchStarted;
using Stream = grpc::ClientReaderWriter<ConnectRequest, ConnectResponse>;

[[noreturn]] void Usage(const std::string& problem) {
  std::cerr << "bot: " << problem << "\n";
  std::exit(2);
}

bool Fatal(grpc::StatusCode code) {
  return code == grpc::StatusCode::UNAUTHENTICATED || code == grpc::StatusCode::PERMISSION_DENIED ||
         code == grpc::StatusCode::INVALID_ARGUMENT || code == grpc::StatusCode::FAILED_PRECONDITION;
}

// The stream of the moment, shared by the reader and the workers. Writes go one at a time; an
// answer to a request read on an earlier stream is dropped, since the server sends that request
// again on the resumed one.
class Connection {
 public:
  uint64_t Attach(Stream* stream) {
    std::lock_guard<std::mutex> lock(mutex_);
    stream_ = stream;
    return ++generation_;
  }
  void Detach() {
    std::lock_guard<std::mutex> lock(mutex_);
    stream_ = nullptr;
  }
  bool Write(const ConnectRequest& message, uint64_t generation) {
    std::lock_guard<std::mutex> lock(mutex_);
    return stream_ != nullptr && generation == generation_ && stream_->Write(message);
  }
  void Close(grpc::ClientContext* context) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (stream_ != nullptr) stream_->WritesDone();
    context->TryCancel();
  }

 private:
  std::mutex mutex_;
  Stream* stream_ = nullptr;
  uint64_t generation_ = 0;
};

// Requests of different matches are answered side by side, one worker per match slot.
class Workers {
 public:
  Workers(Connection* connection, const Policy& policy, uint32_t count) : connection_(connection), policy_(policy) {
    for (uint32_t i = 0; i < count; ++i) threads_.emplace_back([this] { Run(); });
  }
  ~Workers() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      done_ = true;
    }
    ready_.notify_all();
    for (auto& thread : threads_) thread.join();
  }
  void Add(MatchStarted match, ActionRequest request, uint64_t generation) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      queue_.emplace_back(std::move(match), std::move(request), generation);
    }
    ready_.notify_one();
  }

 private:
  void Run() {
    for (;;) {
      std::tuple<MatchStarted, ActionRequest, uint64_t> item;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        ready_.wait(lock, [this] { return done_ || !queue_.empty(); });
        if (done_) return;
        item = std::move(queue_.front());
        queue_.pop_front();
      }
      const auto& [match, request, generation] = item;
      ConnectRequest answer;
      auto* action = answer.mutable_action();
      action->set_match_id(request.match_id());
      action->set_request_id(request.request_id());
      const Answer chosen = policy_(match, request);
      action->set_action_id(chosen.action);
      action->set_debug(chosen.debug);
      connection_->Write(answer, generation);
    }
  }

  Connection* connection_;
  const Policy& policy_;
  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<std::tuple<MatchStarted, ActionRequest, uint64_t>> queue_;
  bool done_ = false;
  std::vector<std::thread> threads_;
};

std::vector<std::string> SplitGames(const std::string& text) {
  std::vector<std::string> games;
  std::stringstream stream(text);
  std::string game;
  while (std::getline(stream, game, ',')) {
    if (!game.empty()) games.push_back(game);
  }
  return games;
}

}  // namespace

Options ParseOptions(int argc, char** argv) {
  Options options;
  if (const char* server = std::getenv("ARENA_SERVER"); server && *server) options.server = server;
  if (const char* token = std::getenv("ARENA_TOKEN"); token && *token) options.token = token;
  for (int i = 1; i < argc; i += 2) {
    const std::string flag = argv[i];
    if (i + 1 >= argc) Usage(flag + " needs a value");
    const std::string value = argv[i + 1];
    if (flag == "--server") {
      options.server = value;
    } else if (flag == "--token") {
      options.token = value;
    } else if (flag == "--games") {
      options.games = SplitGames(value);
    } else if (flag == "--max-matches") {
      options.max_matches = static_cast<uint32_t>(std::max(1, std::atoi(value.c_str())));
    } else if (flag == "--matches") {
      options.matches = std::atoi(value.c_str());
    } else if (flag == "--max-attempts") {
      char* end = nullptr;
      const long attempts = std::strtol(value.c_str(), &end, 10);
      if (*end != '\0' || attempts < 0 || attempts > 1000000) Usage("--max-attempts needs a number (0: never give up)");
      options.max_attempts = static_cast<int>(attempts);
    } else if (flag == "--give-up-after") {
      char* end = nullptr;
      const double seconds = std::strtod(value.c_str(), &end);
      if (*end != '\0' || !(seconds >= 0 && seconds <= 1e9)) Usage("--give-up-after needs seconds (0: never give up)");
      options.give_up_after = seconds;
    } else {
      Usage("unknown option " + flag);
    }
  }
  if (options.token.empty()) Usage("give the bot token with --token or ARENA_TOKEN");
  return options;
}

// Ends an attempt that got no Welcome within 10 s (a host that swallows packets): seconds, not the
// minutes a connect may wait.
class WelcomeWatch {
 public:
  explicit WelcomeWatch(grpc::ClientContext* context)
      : thread_([this, context] {
          std::unique_lock<std::mutex> lock(mutex_);
          if (!done_changed_.wait_for(lock, std::chrono::seconds(10), [this] { return done_; })) {
            expired_ = true;
            context->TryCancel();
          }
        }) {}
  ~WelcomeWatch() {
    Done();
    thread_.join();
  }
  void Done() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      done_ = true;
    }
    done_changed_.notify_all();
  }
  bool Expired() {
    std::lock_guard<std::mutex> lock(mutex_);
    return expired_;
  }

 private:
  std::mutex mutex_;
  std::condition_variable done_changed_;
  bool done_ = false;
  bool expired_ = false;
  std::thread thread_;
};

// A failed attempt's reason in a few words: gRPC's details say their cause last.
std::string Why(const grpc::Status& status) {
  std::string details = status.error_message().empty() ? "the server ended the stream" : status.error_message();
  const auto at = details.rfind(": ");
  if (details.rfind("failed to connect", 0) == 0 && at != std::string::npos) details = details.substr(at + 2);
  static const char* const kCodes[] = {"OK", "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED",
                                       "NOT_FOUND", "ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED",
                                       "FAILED_PRECONDITION", "ABORTED", "OUT_OF_RANGE", "UNIMPLEMENTED", "INTERNAL",
                                       "UNAVAILABLE", "DATA_LOSS", "UNAUTHENTICATED"};
  const int code = static_cast<int>(status.error_code());
  return details + " (" + (code >= 0 && code <= 16 ? kCodes[code] : std::to_string(code)) + ")";
}

int Play(const Options& options, const Policy& policy) {
  Connection connection;
  Workers workers(&connection, policy, options.max_matches);
  std::map<std::string, MatchStarted> matches;
  std::string session_id;
  int ended = 0;
  int backoff_ms = 100;
  int attempts = 0;                             // in a row without a Welcome
  auto since = std::chrono::steady_clock::now();  // the start, or when the last stream with a Welcome was lost
  for (;;) {
    // A new channel per attempt (gRPC C++ dials unix:PATH itself): one that failed to connect
    // waits out its own backoff, up to two minutes, before it tries again.
    auto channel = grpc::CreateChannel(options.server, grpc::InsecureChannelCredentials());
    auto stub = BotService::NewStub(channel);
    grpc::ClientContext context;
    context.AddMetadata("authorization", "Bearer " + options.token);
    WelcomeWatch watch(&context);
    bool welcomed = false;
    std::unique_ptr<Stream> stream = stub->Connect(&context);
    const uint64_t generation = connection.Attach(stream.get());
    ConnectRequest hello;
    for (const auto& game : options.games) hello.mutable_hello()->add_games(game);
    hello.mutable_hello()->set_max_matches(options.max_matches);
    hello.mutable_hello()->set_resume_session_id(session_id);
    hello.mutable_hello()->set_client(options.client);
    connection.Write(hello, generation);
    bool stopping = false;
    ConnectResponse message;
    while (stream->Read(&message)) {
      switch (message.message_case()) {
        case ConnectResponse::kWelcome:
          watch.Done();
          welcomed = true;
          session_id = message.welcome().session_id();
          std::cerr << "bot: connected to " << options.server << " as " << message.welcome().bot_name() << ", session "
                    << session_id << (message.welcome().resumed() ? ", resumed" : "") << "\n";
          break;
        case ConnectResponse::kMatchStarted:
          // A resumed stream sends it again for every match still running.
          matches[message.match_started().match_id()] = message.match_started();
          break;
        case ConnectResponse::kActionRequest: {
          const MatchStarted& match = matches[message.action_request().match_id()];
          workers.Add(match, std::move(*message.mutable_action_request()), generation);
          break;
        }
        case ConnectResponse::kMatchEnded: {
          const auto& end = message.match_ended();
          matches.erase(end.match_id());
          std::string ranks;
          for (auto rank : end.ranks()) ranks += (ranks.empty() ? "" : ",") + std::to_string(rank);
          std::cerr << "bot: match " << end.match_id() << " ended, ranks " << ranks << "\n";
          if (options.matches > 0 && ++ended >= options.matches && !stopping) {
            stopping = true;
            connection.Close(&context);
          }
          break;
        }
        case ConnectResponse::kError:
          std::cerr << "bot: " << arena::v1::ErrorCode_Name(message.error().code()) << ": "
                    << message.error().message() << "\n";
          break;
        default:
          break;
      }
    }
    connection.Detach();
    const grpc::Status status = stream->Finish();
    watch.Done();
    if (stopping) return 0;
    if (Fatal(status.error_code())) {
      std::cerr << "bot: the arena refused the bot: " << status.error_message() << "\n";
      return 2;
    }
    if (welcomed) {
      attempts = 0;
      since = std::chrono::steady_clock::now();
      backoff_ms = 100;
    }
    const std::string what = std::string(welcomed ? "lost the stream to " : "cannot connect to ") + options.server +
                             ": " + (watch.Expired() ? "no Welcome within 10 s" : Why(status));
    ++attempts;
    const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
    if ((options.max_attempts > 0 && attempts >= options.max_attempts) ||
        (options.give_up_after > 0 && waited >= options.give_up_after)) {
      std::cerr << "bot: giving up after " << attempts << " attempts in " << static_cast<int>(waited)
                << " s without a Welcome (" << what << "); check the server's address and that the arena is running\n";
      return 1;
    }
    std::cerr << "bot: " << what << "; retrying in " << backoff_ms << " ms (attempt " << attempts + 1
              << (options.max_attempts > 0 ? " of " + std::to_string(options.max_attempts) : "") << ")\n";
    std::this_thread::sleep_for(std::chrono::milliseconds(backoff_ms));
    backoff_ms = std::min(5000, backoff_ms * 2);
  }
}

}  // namespace arena_sdk
