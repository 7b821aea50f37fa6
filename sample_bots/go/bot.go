// The Go sample bot: the highest card that keeps its pile at 13 or less, else the lowest card;
// in board13 the move that captures most (monuments first), else the one nearest the centre.
// The SDK (arenasdk/) keeps the session, plays every match at once and resumes a lost stream;
// build.sh generates the messages from ../../proto.
//
//	build/bot --server 127.0.0.1:50051 --token atb_... [--games friday13,amigo13,board13]
//	          [--max-matches 4] [--matches N]
//
// The token and server may also come from ARENA_TOKEN and ARENA_SERVER.
package main

import (
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"

	arenav1 "github.com/thirteen-arena/arena/gen/go/arena/v1"
	"github.com/thirteen-arena/arena/sample_bots/go/arenasdk"
)

const limit = 13

// parseCard reads "cat:5" (a card for its own pile) or "friday:4>mirror" (a wild card naming its pile).
func parseCard(text string) (value int, pile string) {
	card, target, wild := strings.Cut(text, ">")
	suit, number, _ := strings.Cut(card, ":")
	value, _ = strconv.Atoi(number)
	if wild {
		return value, target
	}
	return value, suit
}

// chooseCard plays the highest card that keeps its pile at 13 or less; if none is safe, the
// lowest card, so that the pile restarts low.
func chooseCard(observation *arenav1.CardObservation, legal []*arenav1.LegalAction) uint32 {
	totals := map[string]int{}
	for _, pile := range observation.GetPiles() {
		totals[pile.GetSuit()] = int(pile.GetTotal())
	}
	type key struct{ unsafe, rank, id int }
	keys := make([]key, len(legal))
	for i, option := range legal {
		value, pile := parseCard(option.GetText())
		if totals[pile]+value <= limit {
			keys[i] = key{0, -value, int(option.GetId())}
		} else {
			keys[i] = key{1, value, int(option.GetId())}
		}
	}
	best := 0
	for i, k := range keys {
		b := keys[best]
		if k.unsafe < b.unsafe || (k.unsafe == b.unsafe && (k.rank < b.rank || (k.rank == b.rank && k.id < b.id))) {
			best = i
		}
	}
	return legal[best].GetId()
}

// square numbers the fields a1..g7 as file + 7 * rank, the order of Board13Observation.fields.
func square(name string) int {
	if len(name) != 2 || name[0] < 'a' || name[0] > 'g' || name[1] < '1' || name[1] > '7' {
		return -1
	}
	return int(name[0]-'a') + 7*int(name[1]-'1')
}

func own(piece arenav1.Piece, seat int32) bool {
	if seat == 0 {
		return piece == arenav1.Piece_PIECE_BLACK || piece == arenav1.Piece_PIECE_BLACK_MONUMENT
	}
	return piece == arenav1.Piece_PIECE_WHITE || piece == arenav1.Piece_PIECE_WHITE_MONUMENT
}

func monument(piece arenav1.Piece) bool {
	return piece == arenav1.Piece_PIECE_NEUTRAL_MONUMENT || piece == arenav1.Piece_PIECE_BLACK_MONUMENT ||
		piece == arenav1.Piece_PIECE_WHITE_MONUMENT
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// chooseBoard13 plays the move that encloses most against one of the seat's own pieces (a
// monument counts for a hundred stones), then the one landing nearest the centre d4; it passes
// only when nothing else is legal.
func chooseBoard13(observation *arenav1.Board13Observation, legal []*arenav1.LegalAction) uint32 {
	board := make([]arenav1.Piece, 49)
	for _, field := range observation.GetFields() {
		if at := square(field.GetSquare()); at >= 0 {
			board[at] = field.GetPiece()
		}
	}
	seat := observation.GetSeat()
	directions := [][2]int{{1, 0}, {-1, 0}, {0, 1}, {0, -1}}
	if observation.GetCaptureDiagonal() {
		directions = append(directions, [2]int{1, 1}, [2]int{1, -1}, [2]int{-1, 1}, [2]int{-1, -1})
	}
	best, bestScore := 0, 0
	for i, option := range legal {
		words := strings.Fields(option.GetText())
		start, end := -1, -1
		if len(words) == 2 && words[0] == "place" {
			end = square(words[1])
		} else if len(words) == 2 && words[0] == "move" {
			from, to, _ := strings.Cut(words[1], "-")
			start, end = square(from), square(to)
		}
		score := -1000000 // pass, or a text this bot does not know
		if end >= 0 {
			after := append([]arenav1.Piece(nil), board...)
			if start >= 0 {
				after[start] = arenav1.Piece_PIECE_EMPTY
			}
			file, rank := end%7, end/7
			gain := 0
			for _, d := range directions {
				farFile, farRank := file+2*d[0], rank+2*d[1]
				if farFile < 0 || farFile > 6 || farRank < 0 || farRank > 6 {
					continue
				}
				near := after[file+d[0]+7*(rank+d[1])]
				far := after[farFile+7*farRank]
				capturable := near == arenav1.Piece_PIECE_NEUTRAL_MONUMENT || own(near, 1-seat)
				if capturable && own(far, seat) {
					if monument(near) {
						gain += 100
					} else {
						gain++
					}
				}
			}
			centre := abs(file - 3)
			if abs(rank-3) > centre {
				centre = abs(rank - 3)
			}
			score = 10*gain - centre
		}
		if i == 0 || score > bestScore || (score == bestScore && option.GetId() < legal[best].GetId()) {
			best, bestScore = i, score
		}
	}
	return legal[best].GetId()
}

func choose(request *arenav1.ActionRequest) uint32 {
	legal := request.GetLegalActions()
	switch observation := request.GetObservation().GetGame().(type) {
	case *arenav1.Observation_Cards:
		return chooseCard(observation.Cards, legal)
	case *arenav1.Observation_Board13:
		return chooseBoard13(observation.Board13, legal)
	default:
		// A game this bot does not know (a GenericObservation): the lowest legal id.
		ids := make([]int, len(legal))
		for i, option := range legal {
			ids[i] = int(option.GetId())
		}
		sort.Ints(ids)
		return uint32(ids[0])
	}
}

// explain says why the choice was made, for the replay (the answer's debug text).
func explain(request *arenav1.ActionRequest, id uint32) string {
	text := ""
	for _, option := range request.GetLegalActions() {
		if option.GetId() == id {
			text = option.GetText()
		}
	}
	cards, ok := request.GetObservation().GetGame().(*arenav1.Observation_Cards)
	if !ok {
		return fmt.Sprintf("%s of %d legal actions", text, len(request.GetLegalActions()))
	}
	value, pile := parseCard(text)
	total := 0
	for _, p := range cards.Cards.GetPiles() {
		if p.GetSuit() == pile {
			total = int(p.GetTotal())
		}
	}
	if total+value <= limit {
		return fmt.Sprintf("%s: highest safe card, %s to %d", text, pile, total+value)
	}
	return fmt.Sprintf("%s: nothing safe, lowest card, %s to %d", text, pile, total+value)
}

func main() {
	policy := func(_ *arenav1.MatchStarted, request *arenav1.ActionRequest) arenasdk.Answer {
		id := choose(request)
		return arenasdk.Answer{Action: id, Debug: explain(request, id)}
	}
	os.Exit(arenasdk.Play(arenasdk.ParseOptions(os.Args[1:]), policy))
}
