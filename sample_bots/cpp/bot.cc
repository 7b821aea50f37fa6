// The C++ sample bot: the highest card that keeps its pile at 13 or less, else the lowest card;
// in board13 the move that captures most (monuments first), else the one nearest the centre.
// Each answer carries a line of debug text saying why (kept with the replay; never shown to the
// other seats). The SDK (sdk/arena_sdk.h) keeps the session, plays every match at once and
// resumes a lost stream; build.sh generates the messages from ../../proto.
//
//   build/bot --server 127.0.0.1:50051 --token atb_... [--games friday13,amigo13,board13]
//             [--max-matches 4] [--matches N] [--max-attempts 20] [--give-up-after 120]
// The token and server may also come from ARENA_TOKEN and ARENA_SERVER.

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <sstream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "arena/v1/bot_service.pb.h"
#include "sdk/arena_sdk.h"

namespace {

using arena::v1::ActionRequest;
using arena::v1::Board13Observation;
using arena::v1::CardObservation;
using arena::v1::LegalAction;
using arena::v1::Observation;
using LegalActions = google::protobuf::RepeatedPtrField<LegalAction>;

std::vector<std::string> Split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::stringstream stream(text);
  std::string part;
  while (std::getline(stream, part, separator)) {
    if (!part.empty()) parts.push_back(part);
  }
  return parts;
}

constexpr int kLimit = 13;

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

// Why `id` was chosen, for the replay: the card and what it does to its pile, or the action's text.
std::string Explain(const ActionRequest& request, uint32_t id) {
  std::string text;
  for (const auto& option : request.legal_actions()) {
    if (option.id() == id) text = option.text();
  }
  if (request.observation().game_case() != Observation::kCards) {
    return text + " of " + std::to_string(request.legal_actions_size()) + " legal actions";
  }
  const CardAction action = ParseCardAction(text);
  int total = 0;
  for (const auto& pile : request.observation().cards().piles()) {
    if (pile.suit() == action.pile) total = static_cast<int>(pile.total());
  }
  const int after = total + action.value;
  return text + (after <= kLimit ? ": highest safe card, " : ": nothing safe, lowest card, ") + action.pile + " to " +
         std::to_string(after);
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

}  // namespace

int main(int argc, char** argv) {
  return arena_sdk::Play(arena_sdk::ParseOptions(argc, argv), [](const arena::v1::MatchStarted&, const ActionRequest& request) {
    const uint32_t id = Choose(request);
    return arena_sdk::Answer{id, Explain(request, id)};
  });
}
