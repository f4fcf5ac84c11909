package io.delayq.server.testing;

import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * One {@code delayq serve} (no token) shared by every test class of the run that registers this
 * extension, started on first use and stopped with SIGTERM when the run ends: a JVM start per
 * class would cost more than the tests themselves. Tests keep apart by using their own queues.
 *
 * <pre>{@code
 * @RegisterExtension static final SharedServer server = new SharedServer();
 * }</pre>
 */
public final class SharedServer implements BeforeAllCallback {
  private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(SharedServer.class);
  private ServerProcess process;

  @Override
  public void beforeAll(ExtensionContext context) {
    process =
        context.getRoot().getStore(NAMESPACE)
            .getOrComputeIfAbsent("server", key -> new Running(), Running.class)
            .process;
  }

  public ServerProcess process() {
    if (process == null) {
      throw new IllegalStateException("register SharedServer as a static @RegisterExtension field");
    }
    return process;
  }

  public ApiClient api() {
    return new ApiClient(process().baseUrl());
  }

  /** Kept in the root store, which closes it when the whole run ends. */
  private static final class Running implements AutoCloseable {
    final ServerProcess process;

    Running() {
      try {
        process = ServerProcess.start();
      } catch (java.io.IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    }

    @Override
    public void close() throws InterruptedException {
      process.close();
    }
  }
}
