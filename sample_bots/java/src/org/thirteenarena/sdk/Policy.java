package org.thirteenarena.sdk;

import org.thirteenarena.arena.v1.ActionRequest;
import org.thirteenarena.arena.v1.MatchStarted;

/** A bot's choice: one of the request's legal action ids. Called on several threads at once. */
@FunctionalInterface
public interface Policy {
  /**
   * The action to play. `match` is the match's MatchStarted (null only if the server sent a
   * request before it, which it never does).
   */
  int choose(MatchStarted match, ActionRequest request);
}
