package org.thirteenarena.sdk;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;

/**
 * Relays a loopback TCP port to a Unix socket (a hosted bot's only way to the arena). Netty's NIO
 * transport cannot dial Unix sockets and Debian ships no native epoll library for it; Java 16's
 * NIO can, so the bytes take one extra hop inside this process.
 */
final class UnixSocketBridge implements AutoCloseable {
  private final ServerSocketChannel listener;
  private final String path;

  private UnixSocketBridge(ServerSocketChannel listener, String path) {
    this.listener = listener;
    this.path = path;
  }

  static UnixSocketBridge start(String path) throws IOException {
    ServerSocketChannel listener = ServerSocketChannel.open();
    listener.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
    UnixSocketBridge bridge = new UnixSocketBridge(listener, path);
    Thread acceptor = new Thread(bridge::accept, "arena-bridge");
    acceptor.setDaemon(true);
    acceptor.start();
    return bridge;
  }

  int port() {
    return ((InetSocketAddress) listener.socket().getLocalSocketAddress()).getPort();
  }

  private void accept() {
    while (listener.isOpen()) {
      try {
        SocketChannel client = listener.accept();
        SocketChannel server = SocketChannel.open(StandardProtocolFamily.UNIX);
        try {
          server.connect(UnixDomainSocketAddress.of(path));
        } catch (IOException error) {
          System.err.println("arena-bot: cannot reach " + path + ": " + error.getMessage());
          client.close();
          server.close();
          continue;
        }
        pump(client, server);
        pump(server, client);
      } catch (IOException error) {
        return; // the listener was closed
      }
    }
  }

  /** Copies one direction until either side closes, then closes both. */
  private static void pump(SocketChannel from, SocketChannel to) {
    Thread thread =
        new Thread(
            () -> {
              ByteBuffer buffer = ByteBuffer.allocate(64 << 10);
              try {
                while (from.read(buffer) >= 0) {
                  buffer.flip();
                  while (buffer.hasRemaining()) {
                    to.write(buffer);
                  }
                  buffer.clear();
                }
              } catch (IOException error) {
                // the other direction or the peer closed: fall through and close both
              } finally {
                closeQuietly(from);
                closeQuietly(to);
              }
            },
            "arena-bridge-pump");
    thread.setDaemon(true);
    thread.start();
  }

  private static void closeQuietly(SocketChannel channel) {
    try {
      channel.close();
    } catch (IOException error) {
      // already closed
    }
  }

  @Override
  public void close() throws IOException {
    listener.close();
  }
}
