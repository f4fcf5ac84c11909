package io.delayq.spring.internal.listener;

import java.lang.reflect.Method;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import org.springframework.core.task.VirtualThreadTaskExecutor;

/**
 * Executors of virtual threads, one thread per handler run. The starter is built for Java 17, so
 * the Java 21 factory method is looked up at run time; it is only called where {@code
 * Threading.VIRTUAL} found virtual threads active, which implies Java 21 or later.
 */
final class VirtualThreads {
  private VirtualThreads() {}

  static ExecutorService executor(String threadNamePrefix) {
    ThreadFactory factory = new VirtualThreadTaskExecutor(threadNamePrefix).getVirtualThreadFactory();
    try {
      Method perTask = Executors.class.getMethod("newThreadPerTaskExecutor", ThreadFactory.class);
      return (ExecutorService) perTask.invoke(null, factory);
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("virtual threads are enabled (spring.threads.virtual.enabled) but this Java ("
          + Runtime.version() + ") has no Executors.newThreadPerTaskExecutor; run on Java 21 or later, or turn"
          + " them off", e);
    }
  }
}
