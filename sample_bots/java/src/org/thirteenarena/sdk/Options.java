package org.thirteenarena.sdk;

import java.util.ArrayList;
import java.util.List;

/** The command line every sample bot takes, with ARENA_SERVER and ARENA_TOKEN as defaults. */
public final class Options {
  public String server = env("ARENA_SERVER", "127.0.0.1:50051");
  public String token = env("ARENA_TOKEN", "");
  public List<String> games = new ArrayList<>();
  public int maxMatches = 1;
  public int matches;
  public boolean ladder;
  /** Give up after this many attempts in a row without a Welcome; 0: never. */
  public int maxAttempts = 20;
  /** Give up after this many seconds without a Welcome; 0: never. */
  public double giveUpAfter = 120;

  /** Parses the arguments; throws IllegalArgumentException with a one-line reason. */
  public static Options parse(String[] args) {
    Options options = new Options();
    for (int i = 0; i < args.length; i++) {
      String flag = args[i];
      if (flag.equals("--ladder")) {
        options.ladder = true;
        continue;
      }
      if (i + 1 >= args.length) {
        throw new IllegalArgumentException("option " + flag + " needs a value");
      }
      String value = args[++i];
      switch (flag) {
        case "--server" -> options.server = value;
        case "--token" -> options.token = value;
        case "--games" -> {
          options.games.clear();
          for (String game : value.split(",")) {
            if (!game.isBlank()) {
              options.games.add(game.trim());
            }
          }
        }
        case "--max-matches" -> options.maxMatches = number(flag, value);
        case "--matches" -> options.matches = number(flag, value);
        case "--max-attempts" -> options.maxAttempts = number(flag, value);
        case "--give-up-after" -> options.giveUpAfter = seconds(flag, value);
        default -> throw new IllegalArgumentException("unknown option " + flag);
      }
    }
    if (options.token.isEmpty()) {
      throw new IllegalArgumentException("give the bot token with --token or ARENA_TOKEN");
    }
    if (options.maxMatches < 1) {
      throw new IllegalArgumentException("--max-matches must be at least 1");
    }
    if (options.maxAttempts < 0) {
      throw new IllegalArgumentException("--max-attempts must be 0 (never give up) or more");
    }
    return options;
  }

  private static double seconds(String flag, String value) {
    try {
      double seconds = Double.parseDouble(value);
      if (seconds >= 0 && seconds <= 1e9) {
        return seconds;
      }
    } catch (NumberFormatException error) {
      // below
    }
    throw new IllegalArgumentException(flag + " takes a number of seconds (0: never give up), not " + value);
  }

  private static int number(String flag, String value) {
    try {
      return Integer.parseInt(value);
    } catch (NumberFormatException error) {
      throw new IllegalArgumentException(flag + " takes a number, not " + value);
    }
  }

  private static String env(String name, String fallback) {
    String value = System.getenv(name);
    return value == null || value.isEmpty() ? fallback : value;
  }
}
