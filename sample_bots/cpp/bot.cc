// A Thirteen Arena bot in C++, on Debian's gRPC (libgrpc++ 1.51) with code generated from
// ../../proto by build.sh. It keeps one session with the arena, answers the requests of all its
// matches at once (a pool of worker threads, one per match slot), resumes the session after a
// lost stream, and plays the highest card that keeps its pile at 13 or less, else the lowest
// card; in board13 the move that captures most (monuments first), else the one nearest the centre.
//
//   build/bot --server 127.0.0.1:50051 --token atb_... [--games friday13,amigo13,board13]
//             [--max-matches 4] [--matches N]
// The token and server may also come from ARENA_TOKEN and ARENA_SERVER.

#include <grpcpp/grpcpp.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdlib>
#include <deque>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

#include "arena/v1/bot_service.grpc.pb.h"

namespace {

using arena::v1::ActionRequest;
using arena::v1::Board13Observation;
using arena::v1::BotService;
using arena::v1::CardObservation;
using arena::v1::ConnectRequest;
using arena::v1::ConnectResponse;
using arena::v1::LegalAction;
using arena::v1::Observation;
using Stream = grpc::ClientReaderWriter<ConnectRequest, ConnectResponse>;
using LegalActions = google::protobuf::RepeatedPtrField<LegalAction>;

constexpr int kLimit = 13;

struct Options {
  std::string server = "127.0.0.1:50051";
  std::string token;
  std::vector<std::string> games;
  uint32_t max_matches = 1;
  int matches = 0;
};

std::vector<std::string> Split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::stringstream stream(text);
  std::string part;
  while (std::getline(stream, part, separator)) {
    if (!part.empty()) parts.push_back(part);
  }
  return parts;
}

[[noreturn]] void Usage(const std::string& problem) {
  std::cerr << "bot: " << problem << "\n";
  std::exit(2);
}

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
      options.games = Split(value, ',');
    } else if (flag == "--max-matches") {
      options.max_matches = static_cast<uint32_t>(std::max(1, std::atoi(value.c_str())));
    } else if (flag == "--matches") {
      options.matches = std::atoi(value.c_str());
    } else {
      Usage("unknown option " + flag);
    }
  }
  if (options.token.empty()) Usage("give the bot token with --token or ARENA_TOKEN");
  return options;
}

// "cat:5" is a card for its own pile; "friday:4>mirror" names the pile of a wild card.
struct CardAction {
  std::string suit;
  int value = 0;
  std::string pile;
};

CardAction ParseCardAction(const std::string& text) {
  CardAction action;
  const auto arrow = text.find('>');
  const std::string card = text.substr(0, arrow);
  const auto colon = card.find(':');
  action.suit = card.substr(0, colon);
  action.value = colon == std::string::npos ? 0 : std::atoi(card.c_str() + colon + 1);
  action.pile = arrow == std::string::npos ? action.suit : text.substr(arrow + 1);
  return action;
}

// friday13 and amigo13: the highest card that keeps its pile at 13 or less; if none is safe,
// the lowest card, so that the pile restarts low.
uint32_t ChooseCard(const CardObservation& observation, const LegalActions& legal) {
  std::map<std::string, int> totals;
  for (const auto& pile : observation.piles()) totals[pile.suit()] = static_cast<int>(pile.total());
  const LegalAction* best = nullptr;
  std::tuple<int, int, uint32_t> best_key;
  for (const auto& option : legal) {
    const CardAction action = ParseCardAction(option.text());
    const bool safe = totals[action.pile] + action.value <= kLimit;
    const auto key = safe ? std::make_tuple(0, -action.value, option.id()) : std::make_tuple(1, action.value, option.id());
    if (best == nullptr || key < best_key) {
      best = &option;
      best_key = key;
    }
  }
  return best->id();
}

// board13: fields a1..g7 are numbered file + 7 * rank, as in Board13Observation.fields.
int Square(const std::string& name) {
  if (name.size() != 2 || name[0] < 'a' || name[0] > 'g' || name[1] < '1' || name[1] > '7') return -1;
  return (name[0] - 'a') + 7 * (name[1] - '1');
}

// The pieces a seat captures with, and those it may capture.
bool Own(int piece, int seat) {
  return seat == 0 ? (piece == arena::v1::PIECE_BLACK || piece == arena::v1::PIECE_BLACK_MONUMENT)
                   : (piece == arena::v1::PIECE_WHITE || piece == arena::v1::PIECE_WHITE_MONUMENT);
}
bool Monument(int piece) {
  return piece == arena::v1::PIECE_NEUTRAL_MONUMENT || piece == arena::v1::PIECE_BLACK_MONUMENT ||
         piece == arena::v1::PIECE_WHITE_MONUMENT;
}
bool Capturable(int piece, int seat) {
  return piece == arena::v1::PIECE_NEUTRAL_MONUMENT || Own(piece, 1 - seat);
}

// The move that encloses most against one of the seat's own pieces (a monument counts for a
// hundred stones), then the one landing nearest the centre d4; pass only when nothing else is legal.
uint32_t ChooseBoard13(const Board13Observation& observation, const LegalActions& legal) {
  std::vector<int> board(49, arena::v1::PIECE_EMPTY);
  for (const auto& field : observation.fields()) {
    const int square = Square(field.square());
    if (square >= 0) board[square] = field.piece();
  }
  const int seat = observation.seat();
  std::vector<std::pair<int, int>> directions = {{1, 0}, {-1, 0}, {0, 1}, {0, -1}};
  if (observation.capture_diagonal()) directions.insert(directions.end(), {{1, 1}, {1, -1}, {-1, 1}, {-1, -1}});
  const LegalAction* best = nullptr;
  std::pair<int, int64_t> best_key;
  for (const auto& option : legal) {
    const std::vector<std::string> words = Split(option.text(), ' ');
    int start = -1;
    int end = -1;
    if (words.size() == 2 && words[0] == "place") {
      end = Square(words[1]);
    } else if (words.size() == 2 && words[0] == "move") {
      const auto dash = words[1].find('-');
      start = Square(words[1].substr(0, dash));
      end = dash == std::string::npos ? -1 : Square(words[1].substr(dash + 1));
    }
    int score = -1000000;  // pass, or a text this bot does not know
    if (end >= 0) {
      std::vector<int> after = board;
      if (start >= 0) after[start] = arena::v1::PIECE_EMPTY;
      const int file = end % 7;
      const int rank = end / 7;
      int gain = 0;
      for (const auto& [df, dr] : directions) {
        const int near_file = file + df, near_rank = rank + dr, far_file = file + 2 * df, far_rank = rank + 2 * dr;
        if (far_file < 0 || far_file > 6 || far_rank < 0 || far_rank > 6) continue;
        const int near = after[near_file + 7 * near_rank];
        const int far = after[far_file + 7 * far_rank];
        if (Capturable(near, seat) && Own(far, seat)) gain += Monument(near) ? 100 : 1;
      }
      score = 10 * gain - std::max(std::abs(file - 3), std::abs(rank - 3));
    }
    const auto key = std::make_pair(score, -static_cast<int64_t>(option.id()));
    if (best == nullptr || key > best_key) {
      best = &option;
      best_key = key;
    }
  }
  return best->id();
}

uint32_t Choose(const ActionRequest& request) {
  const Observation& observation = request.observation();
  switch (observation.game_case()) {
    case Observation::kCards:
      return ChooseCard(observation.cards(), request.legal_actions());
    case Observation::kBoard13:
      return ChooseBoard13(observation.board13(), request.legal_actions());
    default:
      // A game this bot does not know (a GenericObservation): the lowest legal id.
      uint32_t lowest = request.legal_actions(0).id();
      for (const auto& option : request.legal_actions()) lowest = std::min(lowest, option.id());
      return lowest;
  }
}

bool Fatal(grpc::StatusCode code) {
  return code == grpc::StatusCode::UNAUTHENTICATED || code == grpc::StatusCode::PERMISSION_DENIED ||
         code == grpc::StatusCode::INVALID_ARGUMENT || code == grpc::StatusCode::FAILED_PRECONDITION;
}

// The stream of the moment, shared by the reader and the workers. Writes go one at a time; a
// request read on an earlier stream is dropped, since the server re-sends it on the resumed one.
class Connection {
 public:
  void Attach(Stream* stream) {
    std::lock_guard<std::mutex> lock(mutex_);
    stream_ = stream;
    ++generation_;
  }
  void Detach() {
    std::lock_guard<std::mutex> lock(mutex_);
    stream_ = nullptr;
  }
  uint64_t generation() {
    std::lock_guard<std::mutex> lock(mutex_);
    return generation_;
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

// Requests of different matches are answered side by side.
class Workers {
 public:
  Workers(Connection* connection, uint32_t count) : connection_(connection) {
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
  void Add(ActionRequest request, uint64_t generation) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      queue_.emplace_back(std::move(request), generation);
    }
    ready_.notify_one();
  }

 private:
  void Run() {
    for (;;) {
      std::pair<ActionRequest, uint64_t> item;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        ready_.wait(lock, [this] { return done_ || !queue_.empty(); });
        if (done_) return;
        item = std::move(queue_.front());
        queue_.pop_front();
      }
      const ActionRequest& request = item.first;
      ConnectRequest answer;
      auto* action = answer.mutable_action();
      action->set_match_id(request.match_id());
      action->set_request_id(request.request_id());
      action->set_action_id(Choose(request));
      connection_->Write(answer, item.second);
    }
  }

  Connection* connection_;
  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<std::pair<ActionRequest, uint64_t>> queue_;
  bool done_ = false;
  std::vector<std::thread> threads_;
};

int Play(const Options& options) {
  auto channel = grpc::CreateChannel(options.server, grpc::InsecureChannelCredentials());
  auto stub = BotService::NewStub(channel);
  Connection connection;
  Workers workers(&connection, options.max_matches);
  std::string session_id;
  int ended = 0;
  int backoff_ms = 100;
  for (;;) {
    grpc::ClientContext context;
    context.AddMetadata("authorization", "Bearer " + options.token);
    std::unique_ptr<Stream> stream = stub->Connect(&context);
    connection.Attach(stream.get());
    const uint64_t generation = connection.generation();
    ConnectRequest hello;
    for (const auto& game : options.games) hello.mutable_hello()->add_games(game);
    hello.mutable_hello()->set_max_matches(options.max_matches);
    hello.mutable_hello()->set_resume_session_id(session_id);
    hello.mutable_hello()->set_client("arena-sample-cpp/0.1");
    connection.Write(hello, generation);
    bool stopping = false;
    ConnectResponse message;
    while (stream->Read(&message)) {
      switch (message.message_case()) {
        case ConnectResponse::kWelcome:
          session_id = message.welcome().session_id();
          backoff_ms = 100;
          break;
        case ConnectResponse::kActionRequest:
          workers.Add(std::move(*message.mutable_action_request()), generation);
          break;
        case ConnectResponse::kMatchEnded: {
          const auto& end = message.match_ended();
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
    if (stopping) return 0;
    if (Fatal(status.error_code())) {
      std::cerr << "bot: the arena refused the bot: " << status.error_message() << "\n";
      return 2;
    }
    std::cerr << "bot: stream lost (" << status.error_message() << "); reconnecting in " << backoff_ms << " ms\n";
    std::this_thread::sleep_for(std::chrono::milliseconds(backoff_ms));
    backoff_ms = std::min(5000, backoff_ms * 2);
  }
}

}  // namespace

int main(int argc, char** argv) { return Play(ParseOptions(argc, argv)); }
