/*
 * Runs a Java main class (kafka.Kafka, for our tests) in this JVM, optionally tied to the
 * lifetime of whoever started it.
 *
 * Why: a broker started by a test run must not outlive that run, even when the run crashes.
 * The JVM has no "exit when the parent dies" switch, so with -Dlauncher.exitOnStdinEof=true a
 * daemon thread reads stdin until end of file (the parent's end of the pipe closes when the
 * parent exits, however it exits) and then exits the JVM. System.exit runs Kafka's shutdown
 * hook, so the broker closes its logs cleanly; if that hook hangs, the JVM is halted after a
 * grace period instead of lingering.
 *
 * One process, not a wrapper around one: the pid the caller holds is the broker's, so stopping
 * it needs no process-group games.
 */
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.Arrays;

public final class KafkaLauncher {
  private static final long HALT_AFTER_MS = 20_000;

  private KafkaLauncher() {}

  public static void main(String[] args) throws Throwable {
    if (args.length == 0) {
      System.err.println("usage: KafkaLauncher <main class> [arguments...]");
      System.exit(2);
    }
    if (Boolean.getBoolean("launcher.exitOnStdinEof")) {
      daemon("stdin-eof-watchdog", KafkaLauncher::exitOnStdinEof).start();
    }
    Method main = Class.forName(args[0]).getMethod("main", String[].class);
    try {
      main.invoke(null, (Object) Arrays.copyOfRange(args, 1, args.length));
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
  }

  private static void exitOnStdinEof() {
    byte[] buffer = new byte[256];
    InputStream in = System.in;
    try {
      while (in.read(buffer) >= 0) {
        // Input carries no meaning; only its end does.
      }
    } catch (IOException e) {
      // A broken pipe means the parent is gone as well.
    }
    System.err.println("KafkaLauncher: stdin closed, shutting down");
    daemon("shutdown-deadline", KafkaLauncher::haltLater).start();
    System.exit(0);
  }

  private static void haltLater() {
    try {
      Thread.sleep(HALT_AFTER_MS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    System.err.println("KafkaLauncher: shutdown did not finish in time, halting");
    Runtime.getRuntime().halt(1);
  }

  private static Thread daemon(String name, Runnable body) {
    Thread thread = new Thread(body, name);
    thread.setDaemon(true);
    return thread;
  }
}
