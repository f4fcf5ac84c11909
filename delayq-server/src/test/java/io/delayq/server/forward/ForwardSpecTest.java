package io.delayq.server.forward;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import io.delayq.InvalidRequestException;
import org.junit.jupiter.api.Test;

/** The {@code forward} object: what is refused before anything is stored. */
class ForwardSpecTest {
  private static JsonNode json(String text) throws Exception {
    return ForwardSpec.JSON.readTree(text);
  }

  @Test
  void halfASurrogatePairIsRefusedRatherThanStoredAsAQuestionMark() throws Exception {
    assertThatThrownBy(() -> ForwardSpec.fromJson(
            json("{\"type\":\"rabbitmq\",\"exchange\":\"x\",\"routingKey\":\"a\\ud800\"}"), "forward"))
        .isInstanceOf(InvalidRequestException.class)
        .hasMessageStartingWith("forward.routingKey: holds half of a UTF-16 surrogate pair");
    assertThatThrownBy(() -> ForwardSpec.fromJson(json("{\"type\":\"rabbitmq\",\"exchange\":\"\\udc00\"}"), "forward"))
        .isInstanceOf(InvalidRequestException.class)
        .hasMessageStartingWith("forward.exchange:");
    assertThatThrownBy(() -> ForwardSpec.fromJson(json("{\"type\":\"list\",\"list\":\"l\\ud83d\"}"), "forward"))
        .isInstanceOf(InvalidRequestException.class)
        .hasMessageStartingWith("forward.list:");
  }

  @Test
  void wholeCharactersOutsideTheBasicPlaneAreKeptAsTheyAre() throws Exception {
    ForwardSpec spec = ForwardSpec.fromJson(
        json("{\"type\":\"rabbitmq\",\"exchange\":\"orders\",\"routingKey\":\"\\ud83d\\ude00.é\"}"), "forward");
    assertThat(spec).isEqualTo(new ForwardSpec.Rabbit("orders", "😀.é"));
    assertThat(ForwardSpec.fromStored(spec.stored())).isEqualTo(spec);
  }

  @Test
  void aBadListNameIsNamedAsTheCallerWroteIt() throws Exception {
    assertThatThrownBy(() -> ForwardSpec.fromJson(json("{\"type\":\"list\",\"list\":\"\"}"), "forward"))
        .isInstanceOf(InvalidRequestException.class)
        .hasMessageStartingWith("forward.list: is empty")
        .extracting(e -> ((InvalidRequestException) e).field()).isEqualTo("forward.list");
    assertThatThrownBy(() -> ForwardSpec.fromJson(json("{\"type\":\"list\",\"list\":\"a\\tb\"}"), "forward"))
        .isInstanceOf(InvalidRequestException.class)
        .hasMessageStartingWith("forward.list: contains U+0009");
  }
}
