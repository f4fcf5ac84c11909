package io.delayq.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.AuthenticationFailureException;
import com.rabbitmq.client.ShutdownSignalException;
import com.rabbitmq.client.impl.AMQImpl;
import io.delayq.ForwarderStatus.State;
import java.io.IOException;
import java.net.ConnectException;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** What the forwarder reports for each way the broker can fail it. */
class ProblemTest {
  private final Set<String> suspects = new HashSet<>();

  private static IOException channelClosed(int code, String text) {
    AMQP.Channel.Close close = new AMQImpl.Channel.Close(code, text, 60, 40);
    return new IOException(new ShutdownSignalException(false, false, close, null));
  }

  @Test
  void aMissingExchangeIsAConfigurationErrorThatSaysWhatToDeclare() {
    Problem p = Problem.of(channelClosed(404, "NOT_FOUND - no exchange 'orders' in vhost '/'"), "h", 5672, suspects);
    assertThat(p.state()).isEqualTo(State.MISCONFIGURED);
    assertThat(p.message()).startsWith("exchange 'orders' does not exist in vhost '/': declare it");
    assertThat(suspects).as("checked before the next claim").containsExactly("orders");
  }

  @Test
  void refusedAccessAndCredentialsAreConfigurationErrors() {
    assertThat(Problem.of(channelClosed(403, "ACCESS_REFUSED - write access"), "h", 1, suspects).state())
        .isEqualTo(State.MISCONFIGURED);
    Problem auth = Problem.of(new AuthenticationFailureException("ACCESS_REFUSED - Login was refused"), "h", 1, suspects);
    assertThat(auth.state()).isEqualTo(State.MISCONFIGURED);
    assertThat(auth.message()).contains("user and password");
  }

  @Test
  void anUnreachableOrRestartingBrokerIsRetried() {
    Problem refused = Problem.of(new ConnectException("Connection refused"), "rabbit.local", 5672, suspects);
    assertThat(refused.state()).isEqualTo(State.RETRYING);
    assertThat(refused.message()).isEqualTo("cannot connect to the broker at rabbit.local:5672: Connection refused");
    AMQP.Connection.Close forced = new AMQImpl.Connection.Close(320, "CONNECTION_FORCED - broker forced connection closure", 0, 0);
    Problem closed = Problem.of(new ShutdownSignalException(true, false, forced, null), "h", 1, suspects);
    assertThat(closed.state()).isEqualTo(State.RETRYING);
    assertThat(closed.message()).contains("320").contains("CONNECTION_FORCED");
    assertThat(Problem.of(new RabbitForwarder.ConfirmTimeoutException("no confirm within PT10S"), "h", 1, suspects))
        .isEqualTo(new Problem(State.RETRYING, "no confirm within PT10S"));
    assertThat(suspects).isEmpty();
  }

  @Test
  void aMessageOverTheBrokersMaxSizeTellsTheSize() {
    assertThat(Problem.maxMessageSize(channelClosed(406,
        "PRECONDITION_FAILED - message size 134217729 is larger than configured max size 134217728")))
        .isEqualTo(134217728L);
    assertThat(Problem.maxMessageSize(channelClosed(406, "PRECONDITION_FAILED - message size 9 is larger than max size 8")))
        .isEqualTo(8L);
    assertThat(Problem.maxMessageSize(channelClosed(406, "PRECONDITION_FAILED - inequivalent arg 'durable'")))
        .isEqualTo(-1L);
    assertThat(Problem.maxMessageSize(new ConnectException("Connection refused"))).isEqualTo(-1L);
  }
}
