package org.thirteenarena.sample;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.thirteenarena.arena.v1.ActionRequest;
import org.thirteenarena.arena.v1.Board13Observation;
import org.thirteenarena.arena.v1.CardObservation;
import org.thirteenarena.arena.v1.Field;
import org.thirteenarena.arena.v1.LegalAction;
import org.thirteenarena.arena.v1.MatchStarted;
import org.thirteenarena.arena.v1.Observation;
import org.thirteenarena.arena.v1.Piece;
import org.thirteenarena.arena.v1.Pile;
import org.thirteenarena.sdk.Answer;
import org.thirteenarena.sdk.ArenaClient;
import org.thirteenarena.sdk.Options;

/**
 * The Java sample bot. Card games (friday13, amigo13): the highest card that keeps its pile at 13
 * or less, else the lowest card. board13: a one-ply look at every legal action, preferring what
 * topples the goal's monuments, then other captures, avoiding squares the opponent can enclose
 * at once, and closing in on the nearest monument to topple.
 *
 * <p>run.sh --server HOST:PORT --token atb_... [--games friday13,amigo13,board13] [--max-matches
 * N] [--matches N] [--ladder]
 */
public final class SampleBot {
  private static final int LIMIT = 13;
  private static final int SIZE = 7;

  private SampleBot() {}

  public static void main(String[] args) throws Exception {
    int code;
    try {
      code = new ArenaClient(Options.parse(args), SampleBot::answer).run();
    } catch (IllegalArgumentException error) {
      System.err.println("arena-bot: " + error.getMessage());
      code = 2;
    }
    System.exit(code);
  }

  /** The action to play and a line saying why, kept with the replay (no other seat sees it). */
  public static Answer answer(MatchStarted match, ActionRequest request) {
    int id = choose(match, request);
    String text = "";
    for (LegalAction legal : request.getLegalActionsList()) {
      if (legal.getId() == id) {
        text = legal.getText();
      }
    }
    if (request.getObservation().getGameCase() != Observation.GameCase.CARDS) {
      return new Answer(id, text + " of " + request.getLegalActionsCount() + " legal actions");
    }
    String[] target = text.split(">", 2);
    String[] card = target[0].split(":", 2);
    String pile = target.length > 1 ? target[1] : card[0];
    int after = Integer.parseInt(card[1]);
    for (Pile each : request.getObservation().getCards().getPilesList()) {
      if (each.getSuit().equals(pile)) {
        after += each.getTotal();
      }
    }
    String why = after <= LIMIT ? "highest safe card" : "nothing safe, lowest card";
    return new Answer(id, text + ": " + why + ", " + pile + " to " + after);
  }

  /** The action id to play for one request, whatever the game. */
  public static int choose(MatchStarted match, ActionRequest request) {
    List<LegalAction> legal = request.getLegalActionsList();
    switch (request.getObservation().getGameCase()) {
      case CARDS:
        return highestSafeCard(request.getObservation().getCards(), legal);
      case BOARD13:
        return board13(request.getObservation().getBoard13(), legal);
      default:
        // A game added later sends its observation as JSON (GenericObservation): this bot does
        // not know its rules, so it plays the first legal action.
        return legal.get(0).getId();
    }
  }

  // ---- friday13 and amigo13 ----

  /** "cat:5" plays on pile cat; "friday:4>mirror" and "red:4>blue" (wild cards) name their pile. */
  static int highestSafeCard(CardObservation observation, List<LegalAction> legal) {
    Map<String, Integer> totals = new HashMap<>();
    for (Pile pile : observation.getPilesList()) {
      totals.put(pile.getSuit(), pile.getTotal());
    }
    LegalAction best = null;
    long bestKey = Long.MAX_VALUE;
    for (LegalAction action : legal) {
      String text = action.getText();
      String[] target = text.split(">", 2);
      String[] card = target[0].split(":", 2);
      int value = Integer.parseInt(card[1]);
      String pile = target.length > 1 ? target[1] : card[0];
      boolean safe = totals.getOrDefault(pile, 0) + value <= LIMIT;
      // Safe cards first, highest first; otherwise the lowest card, so that the pile restarts
      // low; ties by id.
      long key = (safe ? 0L : 1L << 40) + ((long) (safe ? 1000 - value : value) << 20) + action.getId();
      if (key < bestKey) {
        best = action;
        bestKey = key;
      }
    }
    return best == null ? legal.get(0).getId() : best.getId();
  }

  // ---- board13 ----

  static int board13(Board13Observation observation, List<LegalAction> legal) {
    int seat = observation.hasCurrentPlayer() ? observation.getCurrentPlayer() : observation.getSeat();
    Piece[] board = new Piece[SIZE * SIZE];
    for (Field field : observation.getFieldsList()) {
      board[index(field.getSquare())] = field.getPiece();
    }
    List<Integer> goals = new java.util.ArrayList<>();
    for (int spot = 0; spot < board.length; spot++) {
      if (target(board[spot], seat)) {
        goals.add(spot);
      }
    }
    boolean neutralGoal = observation.getGoal().equals("neutral_monuments");
    int[][] directions = observation.getCaptureDiagonal() ? ALL_DIRECTIONS : ORTHOGONAL;
    LegalAction best = legal.get(0);
    double bestValue = Double.NEGATIVE_INFINITY;
    for (LegalAction action : legal) {
      double value = value(action.getText(), board, seat, neutralGoal, directions, goals);
      if (value > bestValue) {
        best = action;
        bestValue = value;
      }
    }
    return best.getId();
  }

  private static final int[][] ORTHOGONAL = {{1, 0}, {-1, 0}, {0, 1}, {0, -1}};
  private static final int[][] ALL_DIRECTIONS = {
    {1, 0}, {-1, 0}, {0, 1}, {0, -1}, {1, 1}, {1, -1}, {-1, 1}, {-1, -1}
  };

  /** Worth of "place d4", "move c3-c6" or "pass" for `seat`, looking one ply ahead. */
  private static double value(
      String text, Piece[] board, int seat, boolean neutralGoal, int[][] directions, List<Integer> goals) {
    if (!text.startsWith("place ") && !text.startsWith("move ")) {
      return -1e6; // pass: only ever legal alone
    }
    Piece[] after = board.clone();
    int to;
    Piece piece;
    if (text.startsWith("place ")) {
      to = index(text.substring(6).trim());
      piece = seat == 0 ? Piece.PIECE_BLACK : Piece.PIECE_WHITE;
    } else {
      String[] ends = text.substring(5).trim().split("-");
      int from = index(ends[0]);
      to = index(ends[1]);
      piece = after[from];
      after[from] = Piece.PIECE_EMPTY;
    }
    after[to] = piece;
    double value = 0;
    for (int[] d : directions) {
      int next = step(to, d, 1);
      int beyond = step(to, d, 2);
      if (next < 0 || beyond < 0 || !target(after[next], seat) && !enemyStone(after[next], seat)) {
        continue;
      }
      if (!own(after[beyond], seat)) {
        continue;
      }
      boolean neutral = after[next] == Piece.PIECE_NEUTRAL_MONUMENT;
      if (neutral || target(after[next], seat)) {
        value += neutral == neutralGoal ? 1000 : 300; // a monument the goal counts is worth most
      } else {
        value += 100;
      }
      after[next] = Piece.PIECE_EMPTY;
    }
    // Could the opponent enclose the arrived piece at once (an enemy piece on one side, an empty
    // square on the other)?
    for (int[] d : directions) {
      int one = step(to, d, 1);
      int other = step(to, d, -1);
      if (one >= 0 && other >= 0 && enemyHolder(after[one], seat) && after[other] == Piece.PIECE_EMPTY) {
        value -= 60;
        break;
      }
    }
    int nearest = Integer.MAX_VALUE;
    for (int goal : goals) {
      if (after[goal] != Piece.PIECE_EMPTY) {
        nearest = Math.min(nearest, distance(to, goal));
      }
    }
    if (nearest != Integer.MAX_VALUE) {
      value -= nearest;
    }
    return value;
  }

  /** A monument `seat` may topple: the enemy's and the neutral ones. */
  private static boolean target(Piece piece, int seat) {
    return piece == Piece.PIECE_NEUTRAL_MONUMENT
        || piece == (seat == 0 ? Piece.PIECE_WHITE_MONUMENT : Piece.PIECE_BLACK_MONUMENT);
  }

  private static boolean enemyStone(Piece piece, int seat) {
    return piece == (seat == 0 ? Piece.PIECE_WHITE : Piece.PIECE_BLACK);
  }

  /** A piece the enemy encloses with: its stones and its monuments. */
  private static boolean enemyHolder(Piece piece, int seat) {
    return enemyStone(piece, seat) || piece == (seat == 0 ? Piece.PIECE_WHITE_MONUMENT : Piece.PIECE_BLACK_MONUMENT);
  }

  private static boolean own(Piece piece, int seat) {
    return seat == 0
        ? piece == Piece.PIECE_BLACK || piece == Piece.PIECE_BLACK_MONUMENT
        : piece == Piece.PIECE_WHITE || piece == Piece.PIECE_WHITE_MONUMENT;
  }

  /** "a1" -> 0, "g1" -> 6, "a2" -> 7, ... "g7" -> 48. */
  private static int index(String square) {
    return (square.charAt(1) - '1') * SIZE + (square.charAt(0) - 'a');
  }

  /** The square `times` steps from `spot` along `d`, or -1 off the board. */
  private static int step(int spot, int[] d, int times) {
    int file = spot % SIZE + d[0] * times;
    int rank = spot / SIZE + d[1] * times;
    return file < 0 || file >= SIZE || rank < 0 || rank >= SIZE ? -1 : rank * SIZE + file;
  }

  private static int distance(int a, int b) {
    return Math.max(Math.abs(a % SIZE - b % SIZE), Math.abs(a / SIZE - b / SIZE));
  }
}
