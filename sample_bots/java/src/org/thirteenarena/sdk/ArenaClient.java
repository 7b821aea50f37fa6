package org.thirteenarena.sdk;

import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.MetadataUtils;
import io.grpc.stub.StreamObserver;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.nio.NioSocketChannel;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.thirteenarena.arena.v1.Action;
import org.thirteenarena.arena.v1.ActionRequest;
import org.thirteenarena.arena.v1.BotServiceGrpc;
import org.thirteenarena.arena.v1.ConnectRequest;
import org.thirteenarena.arena.v1.ConnectResponse;
import org.thirteenarena.arena.v1.Hello;
import org.thirteenarena.arena.v1.MatchEnded;
import org.thirteenarena.arena.v1.MatchStarted;

/**
 * One session with the arena: plays every match it is seated in at once, answers each request
 * within its clock, and after a lost stream reconnects with backoff and resumes the session (the
 * server then re-sends MatchStarted and every request still waiting). It says on stderr when it
 * connects, each time it tries again and why, and gives up after `--max-attempts` attempts or
 * `--give-up-after` seconds without a Welcome. arena/sdk/client.py is the reference this follows.
 */
public final class ArenaClient {
  /** Statuses no reconnect can fix. */
  private static final List<Status.Code> FATAL =
      List.of(
          Status.Code.UNAUTHENTICATED,
          Status.Code.PERMISSION_DENIED,
          Status.Code.INVALID_ARGUMENT,
          Status.Code.FAILED_PRECONDITION);

  private static final String CLIENT_NAME = "arena-sample-java/0.1";
  private static final long FIRST_BACKOFF_MS = 100;
  private static final long MAX_BACKOFF_MS = 5000;
  /** The Hello and the Welcome within this: a host that swallows packets costs seconds, not minutes. */
  private static final long WELCOME_TIMEOUT_MS = 10_000;

  private final Options options;
  private final Policy policy;
  private final Map<String, MatchStarted> matches = new ConcurrentHashMap<>();
  private final AtomicInteger ended = new AtomicInteger();
  private final ExecutorService workers;
  private final ScheduledThreadPoolExecutor timers;
  private volatile String sessionId = "";
  private volatile boolean stopping;

  public ArenaClient(Options options, Policy policy) {
    this.options = options;
    this.policy = policy;
    // One worker per match the session may play, so that a slow choice in one match never
    // delays another's answer.
    this.workers = Executors.newFixedThreadPool(Math.max(1, Math.min(options.maxMatches, 16)), daemon("arena-worker"));
    this.timers = new ScheduledThreadPoolExecutor(1, daemon("arena-clock"));
    this.timers.setRemoveOnCancelPolicy(true); // answered requests leave no fallback behind
  }

  /** Plays until `--matches` matches have ended (or forever); returns the process exit code. */
  public int run() throws Exception {
    String target = options.server;
    UnixSocketBridge bridge = null;
    if (target.startsWith("unix:")) {
      // Debian's Netty has no native epoll library, so gRPC-Java cannot dial a Unix socket
      // itself: a loopback TCP port inside this process relays to it.
      bridge = UnixSocketBridge.start(target.substring("unix:".length()));
      target = "127.0.0.1:" + bridge.port();
    }
    InetSocketAddress address = address(target);
    NioEventLoopGroup loop = new NioEventLoopGroup(1, daemon("arena-netty"));
    long backoff = FIRST_BACKOFF_MS;
    int attempts = 0; // in a row without a Welcome
    long since = System.nanoTime(); // the start, or when the last stream with a Welcome was lost
    try {
      while (true) {
        // A new channel per attempt, as the Python SDK does: a channel that failed to connect
        // waits out its own growing backoff (up to two minutes), longer than a session's grace.
        ManagedChannel channel =
            NettyChannelBuilder.forAddress(address)
                .usePlaintext()
                .eventLoopGroup(loop)
                .channelType(NioSocketChannel.class)
                .directExecutor()
                .maxInboundMessageSize(16 << 20)
                .build();
        Outcome outcome;
        try {
          outcome = session(channel);
        } finally {
          channel.shutdownNow();
        }
        if (outcome.status != null && FATAL.contains(outcome.status.getCode())) {
          System.err.println("arena-bot: the arena refused the bot: " + outcome.status.getDescription());
          return 2;
        }
        if (stopping) {
          return 0;
        }
        if (outcome.welcomed) {
          attempts = 0;
          since = System.nanoTime();
          backoff = FIRST_BACKOFF_MS;
        }
        String what =
            (outcome.welcomed ? "lost the stream to " : "cannot connect to ") + options.server + ": " + why(outcome);
        attempts++;
        double waited = (System.nanoTime() - since) / 1e9;
        if ((options.maxAttempts > 0 && attempts >= options.maxAttempts)
            || (options.giveUpAfter > 0 && waited >= options.giveUpAfter)) {
          System.err.printf(
              "arena-bot: giving up after %d attempts in %.0f s without a Welcome (%s); "
                  + "check the server's address and that the arena is running%n",
              attempts, waited, what);
          return 1;
        }
        String limit = options.maxAttempts > 0 ? " of " + options.maxAttempts : "";
        System.err.printf(
            "arena-bot: %s; retrying in %d ms (attempt %d%s)%n", what, backoff, attempts + 1, limit);
        Thread.sleep(backoff);
        backoff = Math.min(MAX_BACKOFF_MS, backoff * 2);
      }
    } finally {
      loop.shutdownGracefully(0, 1, TimeUnit.SECONDS);
      workers.shutdownNow();
      timers.shutdownNow();
      if (bridge != null) {
        bridge.close();
      }
    }
  }

  private static InetSocketAddress address(String hostPort) {
    int colon = hostPort.lastIndexOf(':');
    if (colon < 0) {
      throw new IllegalArgumentException("give the server as HOST:PORT or unix:PATH, not " + hostPort);
    }
    String host = hostPort.substring(0, colon).replace("[", "").replace("]", "");
    return new InetSocketAddress(host, Integer.parseInt(hostPort.substring(colon + 1)));
  }

  /** How one stream ended. */
  private static final class Outcome {
    volatile Status status;
    volatile boolean welcomed;
    volatile boolean silent;
  }

  /** A failed attempt's reason in a few words: the cause of an I/O error says more than its status. */
  private static String why(Outcome outcome) {
    if (outcome.silent) {
      return "no Welcome within " + WELCOME_TIMEOUT_MS / 1000 + " s";
    }
    Status status = outcome.status;
    if (status == null) {
      return "the server ended the stream";
    }
    String details = status.getDescription();
    if (status.getCause() != null && status.getCause().getMessage() != null) {
      // Netty's "finishConnect(..) failed: Connection refused: /127.0.0.1:1": the middle part.
      String cause = status.getCause().getMessage();
      int failed = cause.lastIndexOf("failed: ");
      cause = failed < 0 ? cause : cause.substring(failed + "failed: ".length());
      int address = cause.indexOf(": /");
      details = address < 0 ? cause : cause.substring(0, address);
    }
    return (details == null ? "" : details + " ") + "(" + status.getCode() + ")";
  }

  /** One Connect stream, from Hello to its end. */
  private Outcome session(ManagedChannel channel) throws InterruptedException {
    Metadata headers = new Metadata();
    headers.put(Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER), "Bearer " + options.token);
    BotServiceGrpc.BotServiceStub stub =
        BotServiceGrpc.newStub(channel).withInterceptors(MetadataUtils.newAttachHeadersInterceptor(headers));
    Outcome outcome = new Outcome();
    CountDownLatch done = new CountDownLatch(1);
    Stream stream = new Stream();
    StreamObserver<ConnectResponse> reader =
        new StreamObserver<>() {
          @Override
          public void onNext(ConnectResponse message) {
            handle(message, stream, outcome);
          }

          @Override
          public void onError(Throwable error) {
            outcome.status = Status.fromThrowable(error);
            done.countDown();
          }

          @Override
          public void onCompleted() {
            done.countDown();
          }
        };
    stream.writer = stub.connect(reader);
    Hello hello =
        Hello.newBuilder()
            .addAllGames(options.games)
            .setMaxMatches(options.maxMatches)
            .setJoinLadder(options.ladder)
            .setResumeSessionId(sessionId)
            .setClient(CLIENT_NAME)
            .build();
    stream.send(ConnectRequest.newBuilder().setHello(hello).build());
    ScheduledFuture<?> watch =
        timers.schedule(
            () -> {
              if (!outcome.welcomed) {
                outcome.silent = true;
                ((ClientCallStreamObserver<ConnectRequest>) stream.writer).cancel("no Welcome", null);
              }
            },
            WELCOME_TIMEOUT_MS,
            TimeUnit.MILLISECONDS);
    done.await();
    watch.cancel(false);
    stream.close();
    return outcome;
  }

  /** The writing side of one stream: gRPC's StreamObserver is not thread-safe. */
  private static final class Stream {
    StreamObserver<ConnectRequest> writer;
    boolean closed;

    synchronized void send(ConnectRequest message) {
      if (closed) {
        return; // a lost stream: the server re-sends the request after the resume
      }
      try {
        writer.onNext(message);
      } catch (RuntimeException error) {
        closed = true; // the call was cancelled meanwhile; onError reports it
      }
    }

    synchronized void close() {
      closed = true;
    }

    synchronized void finish() {
      if (!closed) {
        closed = true;
        writer.onCompleted();
      }
    }
  }

  private void handle(ConnectResponse message, Stream stream, Outcome outcome) {
    switch (message.getMessageCase()) {
      case WELCOME:
        if (!message.getWelcome().getSessionId().equals(sessionId)) {
          matches.clear(); // a new session: the old one's matches are lost
        }
        sessionId = message.getWelcome().getSessionId();
        outcome.welcomed = true;
        System.err.printf(
            "arena-bot: connected to %s as %s, session %s%s%n",
            options.server,
            message.getWelcome().getBotName(),
            sessionId,
            message.getWelcome().getResumed() ? ", resumed" : "");
        break;
      case MATCH_STARTED:
        matches.put(message.getMatchStarted().getMatchId(), message.getMatchStarted());
        break;
      case ACTION_REQUEST:
        answer(message.getActionRequest(), stream);
        break;
      case MATCH_ENDED:
        MatchEnded result = message.getMatchEnded();
        matches.remove(result.getMatchId());
        System.err.printf("arena-bot: match %s ended, ranks %s%n", result.getMatchId(), result.getRanksList());
        if (options.matches > 0 && ended.incrementAndGet() >= options.matches) {
          stopping = true;
          stream.finish();
        }
        break;
      case ERROR:
        System.err.printf(
            "arena-bot: %s: %s%n", message.getError().getCode(), message.getError().getMessage());
        break;
      default:
        break; // a message of a later protocol version: nothing to do
    }
  }

  /**
   * Answers on a worker thread; should the policy not have chosen by half the time left, the
   * first legal action goes instead, so the answer is never late.
   */
  private void answer(ActionRequest request, Stream stream) {
    if (request.getLegalActionsCount() == 0) {
      return;
    }
    MatchStarted match = matches.get(request.getMatchId());
    AtomicBoolean answered = new AtomicBoolean();
    long deadlineMs = Math.max(1, request.getTimeLeftMs() / 2);
    int first = request.getLegalActions(0).getId();
    ScheduledFuture<?> fallback =
        timers.schedule(
            () -> reply(request, new Answer(first, "no choice within half the time left: the first legal action"),
                answered, stream),
            deadlineMs,
            TimeUnit.MILLISECONDS);
    workers.execute(
        () -> {
          Answer choice;
          try {
            choice = policy.choose(match, request);
          } catch (RuntimeException error) {
            System.err.println("arena-bot: the policy failed, playing the first legal action: " + error);
            choice = new Answer(first, "the policy failed: " + error);
          }
          reply(request, choice, answered, stream);
          fallback.cancel(false);
        });
  }

  private static void reply(ActionRequest request, Answer choice, AtomicBoolean answered, Stream stream) {
    if (!answered.compareAndSet(false, true)) {
      return;
    }
    Action action =
        Action.newBuilder()
            .setMatchId(request.getMatchId())
            .setRequestId(request.getRequestId())
            .setActionId(choice.actionId)
            .setDebug(choice.debug)
            .build();
    stream.send(ConnectRequest.newBuilder().setAction(action).build());
  }

  private static java.util.concurrent.ThreadFactory daemon(String name) {
    AtomicInteger count = new AtomicInteger();
    return runnable -> {
      Thread thread = new Thread(runnable, name + "-" + count.incrementAndGet());
      thread.setDaemon(true);
      return thread;
    };
  }
}
