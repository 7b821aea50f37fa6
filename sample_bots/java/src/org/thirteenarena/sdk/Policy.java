package org.thirteenarena.sdk;

import org.thirteenarena.arena.v1.ActionRequest;
import org.thirteenarena.arena.v1.MatchStarted;

/** A bot's choice for one request. Called on several threads at once. */
@FunctionalInterface
public interface Policy {
  /**
   * The action to play, with a line of debug text if the bot has something to say about it.
   * `match` is the match's MatchStarted (null only if the server sent a request before it, which
   * it never does).
   */
  Answer choose(MatchStarted match, ActionRequest request);
}
