package io.delayq.rabbitmq;

import com.rabbitmq.client.AMQP;
import io.delayq.ForwarderStatus.State;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Why the broker could not be used, as the forwarder reports it: the state it puts the forwarder
 * in (a configuration error or a passing failure) and a message that says what to do.
 *
 * @param state {@link State#MISCONFIGURED} or {@link State#RETRYING}
 * @param message for {@link io.delayq.ForwarderStatus#lastError()} and the log
 */
record Problem(State state, String message) {
  private static final Pattern NO_EXCHANGE = Pattern.compile("no exchange '(.*)' in vhost '(.*)'");
  private static final Pattern TOO_LARGE = Pattern.compile("message size \\d+ is larger than (?:configured )?max size (\\d+)");

  /**
   * The broker's {@code max_message_size} when {@code e} is its refusal of a larger message (406
   * {@code PRECONDITION_FAILED}, which closes the channel), else -1. AMQP has no way to ask for it
   * before publishing.
   */
  static long maxMessageSize(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof com.rabbitmq.client.ShutdownSignalException sse
          && sse.getReason() instanceof AMQP.Channel.Close close && close.getReplyCode() == 406) {
        Matcher m = TOO_LARGE.matcher(close.getReplyText());
        if (m.find()) {
          try {
            return Long.parseLong(m.group(1));
          } catch (NumberFormatException overflow) {
            return -1;
          }
        }
      }
    }
    return -1;
  }

  /**
   * The problem behind {@code e}; a missing exchange it names is added to {@code suspectExchanges},
   * which the next connection checks before claiming.
   */
  static Problem of(Throwable e, String host, int port, Set<String> suspectExchanges) {
    Throwable t = e;
    while (t != null) {
      if (t instanceof com.rabbitmq.client.ShutdownSignalException sse) {
        Object reason = sse.getReason();
        if (reason instanceof AMQP.Channel.Close close) {
          return channelClosed(close.getReplyCode(), close.getReplyText(), suspectExchanges);
        }
        if (reason instanceof AMQP.Connection.Close close) {
          if (close.getReplyCode() == 530 || close.getReplyCode() == 403) {
            return new Problem(State.MISCONFIGURED, "the broker refused the connection (" + close.getReplyCode() + " "
                + close.getReplyText() + "): check the virtual host and the user's permissions");
          }
          return new Problem(State.RETRYING, "the broker closed the connection (" + close.getReplyCode() + " "
              + close.getReplyText() + ")");
        }
        return new Problem(State.RETRYING, "the connection to the broker was lost: " + sse.getMessage());
      }
      if (t instanceof com.rabbitmq.client.AuthenticationFailureException
          || t instanceof com.rabbitmq.client.PossibleAuthenticationFailureException) {
        return new Problem(State.MISCONFIGURED,
            "the broker refused the credentials (" + t.getMessage() + "): check the user and password of the ConnectionFactory");
      }
      if (t instanceof RabbitForwarder.ConfirmTimeoutException) {
        return new Problem(State.RETRYING, t.getMessage());
      }
      if (t instanceof java.net.ConnectException) {
        return new Problem(State.RETRYING, "cannot connect to the broker at " + host + ":"
            + port + ": " + t.getMessage());
      }
      if (t instanceof java.net.SocketException || t instanceof java.io.EOFException) {
        return new Problem(State.RETRYING, "lost the connection to the broker at " + host + ":"
            + port + ": " + t);
      }
      t = t.getCause();
    }
    return new Problem(State.RETRYING, "the broker failed: " + e);
  }

  private static Problem channelClosed(int code, String text, Set<String> suspectExchanges) {
    if (code == 404) {
      Matcher m = NO_EXCHANGE.matcher(text);
      if (m.find()) {
        suspectExchanges.add(m.group(1));
        return new Problem(State.MISCONFIGURED, "exchange '" + m.group(1) + "' does not exist in vhost '" + m.group(2)
            + "': declare it (durable, of the type your bindings need) or fix the forwarder's exchange; jobs wait in"
            + " delayq until then (" + text + ")");
      }
      return new Problem(State.MISCONFIGURED, "the broker answered 404 (" + text + "): declare what it names");
    }
    if (code == 403) {
      return new Problem(State.MISCONFIGURED,
          "the broker refused access (" + text + "): grant the user write permission on the exchange");
    }
    return new Problem(State.RETRYING, "the broker closed the channel (" + code + " " + text + ")");
  }
}
