package org.thirteenarena.sdk;

/**
 * A policy's choice: one of the request's legal action ids, and optionally a line of debug text
 * about it. The text is kept in the replay at this move (at most 1 KiB; longer is cut), shown to
 * the bot's owner while the match runs and to everyone after it, never to the other seats.
 */
public final class Answer {
  public final int actionId;
  public final String debug;

  public Answer(int actionId, String debug) {
    this.actionId = actionId;
    this.debug = debug == null ? "" : debug;
  }

  public Answer(int actionId) {
    this(actionId, "");
  }
}
