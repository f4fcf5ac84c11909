package io.delayq.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.delayq.InvalidRequestException;
import io.delayq.SortedSetAdoption;
import io.delayq.SortedSetAdoption.ScoreUnit;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

/** The pure rules of adopting a sorted set: units, due times, ids, and which keys are refused. */
class AdoptionRulesTest {
  @Test
  void scoresDecideTheirUnitOnlyWhereTheUnitsDiffer() {
    assertThat(Adoption.classify(1_764_600_000)).isEqualTo(ScoreUnit.SECONDS);
    assertThat(Adoption.classify(1_764_600_000_123d)).isEqualTo(ScoreUnit.MILLISECONDS);
    // as seconds after 5138, as milliseconds 1973-2001: neither reading is safe
    assertThat(Adoption.classify(5e11)).isEqualTo(ScoreUnit.DETECT);
    // long past in both units, or after 9999 in both: no decision needed
    assertThat(Adoption.classify(-1)).isNull();
    assertThat(Adoption.classify(12)).isNull();
    assertThat(Adoption.classify(1e300)).isNull();
    assertThat(Adoption.classify(Double.NEGATIVE_INFINITY)).isNull();
    assertThat(Adoption.classify(Double.POSITIVE_INFINITY)).isNull();
  }

  @Test
  void mixedOrAmbiguousScoresAreRefusedNamingThem() {
    assertThat(Adoption.decide(1.7e9, 1.8e9)).isEqualTo(ScoreUnit.SECONDS);
    assertThat(Adoption.decide(1.7e12, 1.8e12)).isEqualTo(ScoreUnit.MILLISECONDS);
    assertThatThrownBy(() -> Adoption.decide(1_700_000_000, 1_700_000_000_000d))
        .isInstanceOf(InvalidRequestException.class)
        .hasMessageContaining("scoreUnit")
        .hasMessageContaining("both units")
        .hasMessageContaining("1700000000 (seconds)")
        .hasMessageContaining("1700000000000 (milliseconds)");
    assertThatThrownBy(() -> Adoption.decide(1.7e9, 5e11))
        .isInstanceOf(InvalidRequestException.class)
        .hasMessageContaining("cannot tell the unit of score 500000000000");
  }

  @Test
  void dueTimesAreNeverBeforeTheProducersTime() {
    assertThat(Adoption.dueMillis(1_700_000_000, ScoreUnit.SECONDS)).isEqualTo(1_700_000_000_000L);
    assertThat(Adoption.dueMillis(1_700_000_000.25, ScoreUnit.SECONDS)).isEqualTo(1_700_000_000_250L);
    assertThat(Adoption.dueMillis(1_700_000_000.0004, ScoreUnit.SECONDS)).isEqualTo(1_700_000_000_001L);
    assertThat(Adoption.dueMillis(1_700_000_000_123d, ScoreUnit.MILLISECONDS)).isEqualTo(1_700_000_000_123L);
    assertThat(Adoption.dueMillis(1_700_000_000_123.5, ScoreUnit.MILLISECONDS)).isEqualTo(1_700_000_000_124L);
    assertThat(Adoption.dueMillis(-1, ScoreUnit.SECONDS)).isZero();
    assertThat(Adoption.dueMillis(Double.NEGATIVE_INFINITY, ScoreUnit.MILLISECONDS)).isZero();
    assertThat(Adoption.dueMillis(1e300, ScoreUnit.SECONDS)).isEqualTo(-1);
    assertThat(Adoption.dueMillis(Double.POSITIVE_INFINITY, ScoreUnit.MILLISECONDS)).isEqualTo(-1);
    // milliseconds written by mistake under SECONDS land after 9999: refused, never run early
    assertThat(Adoption.dueMillis(1_700_000_000_000d, ScoreUnit.SECONDS)).isEqualTo(-1);
    assertThat(Adoption.dueMillis(Rules.MAX_DUE_MILLIS, ScoreUnit.MILLISECONDS)).isEqualTo(Rules.MAX_DUE_MILLIS);
  }

  @Test
  void idsComeFromTheTopLevelFieldOrElseTheHash() throws Exception {
    MemberIds byField = new MemberIds("orderId");
    assertThat(byField.derive(utf8("{\"orderId\":\"A-17\",\"x\":{\"orderId\":\"inner\"}}")))
        .isEqualTo(new MemberIds.Derived("A-17", false, true));
    assertThat(byField.derive(utf8(" {\"x\":[1,2,{\"a\":null}], \"orderId\": 42} ")))
        .isEqualTo(new MemberIds.Derived("42", false, true));
    assertThat(byField.derive(utf8("{\"orderId\":\"caf\\u00e9\"}")).id()).as("escapes decoded").isEqualTo("caf\u00e9");
    assertThat(byField.derive(utf8("{\"orderId\":\"a\\nb\"}")).hashed()).as("a control character is no id").isTrue();
    String hashOfPlain = "sha256:" + HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(utf8("plain")));
    assertThat(byField.derive(utf8("plain"))).isEqualTo(new MemberIds.Derived(hashOfPlain, true, false));
    // a field that is missing, not a scalar, or not a valid id falls back to the hash, counted
    assertThat(byField.derive(utf8("{\"other\":1}")).hashed()).isTrue();
    assertThat(byField.derive(utf8("{\"orderId\":{\"n\":1}}")).hashed()).isTrue();
    assertThat(byField.derive(utf8("{\"orderId\":\"..\"}")).hashed()).isTrue();
    assertThat(byField.derive(utf8("{\"orderId\":\"\"}")).hashed()).isTrue();
    assertThat(byField.derive(utf8("{\"orderId\":\"x\"")).hashed()).as("truncated JSON").isTrue();
    assertThat(byField.derive(utf8("{\"orderId\":\"x\"}").clone()).id()).isEqualTo("x");
    assertThat(byField.derive(new byte[] {'{', (byte) 0xff, '}'}).json()).as("not UTF-8").isFalse();

    MemberIds byHash = new MemberIds(null);
    MemberIds.Derived json = byHash.derive(utf8("{\"orderId\":7}"));
    assertThat(json.id()).startsWith(SortedSetAdoption.HASH_ID_PREFIX).hasSize(7 + 64);
    assertThat(json.hashed()).as("no field asked, so not a fallback").isFalse();
    assertThat(json.json()).isTrue();
    assertThat(byHash.derive(new byte[0]).id()).isEqualTo(
        "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    // a bare JSON scalar stays plain bytes: "42" is more likely an id written as text than a JSON value
    assertThat(byHash.derive(utf8("42")).json()).isFalse();
    assertThat(byHash.derive(utf8("[1, \"two\", true]")).json()).isTrue();
    assertThat(byHash.derive(utf8("[".repeat(100_000))).json()).as("too deep, and no stack overflow").isFalse();
  }

  @Test
  void delayqsOwnKeysAreRecognisedAndATaggedForeignKeyIsNot() {
    assertThat(Keys.isDelayqKey("{dq:orders:3}:scheduled")).isTrue();
    assertThat(Keys.isDelayqKey("{dq:orders:0}:jobs")).isTrue();
    assertThat(Keys.isDelayqKey("{dq:orders}:settings")).isTrue();
    assertThat(Keys.isDelayqKey("dq:queues")).isTrue();
    assertThat(Keys.isDelayqKey("dq:time-probe")).isTrue();
    assertThat(Keys.isDelayqKey("{dq:orders:0}:legacy")).isFalse();
    assertThat(Keys.isDelayqKey("delayed:orders")).isFalse();
    assertThatThrownBy(() -> SortedSetAdoption.from("{dq:orders:1}:scheduled"))
        .isInstanceOf(InvalidRequestException.class)
        .hasMessageContaining("source")
        .hasMessageContaining("delayq's own keys");
  }

  @Test
  void optionsCheckTheirValuesAndParseCommandLineWords() {
    assertThat(ScoreUnit.of("Seconds")).isEqualTo(ScoreUnit.SECONDS);
    assertThat(ScoreUnit.of("ms")).isEqualTo(ScoreUnit.MILLISECONDS);
    assertThat(SortedSetAdoption.Mode.of("ALL")).isEqualTo(SortedSetAdoption.Mode.ALL);
    assertThatThrownBy(() -> ScoreUnit.of("minutes")).hasMessageContaining("scoreUnit");
    assertThatThrownBy(() -> SortedSetAdoption.from("k").batch(0)).hasMessageContaining("batch");
    assertThatThrownBy(() -> SortedSetAdoption.from("")).hasMessageContaining("source");
    assertThatThrownBy(() -> SortedSetAdoption.from("k").jobIdFromJsonField("")).hasMessageContaining("idField");
    SortedSetAdoption o = SortedSetAdoption.from("k").build();
    assertThat(o.scoreUnit()).isEqualTo(ScoreUnit.DETECT);
    assertThat(o.mode()).isEqualTo(SortedSetAdoption.Mode.DUE);
    assertThat(o.idField()).isEmpty();
    assertThat(o.batch()).isEqualTo(SortedSetAdoption.DEFAULT_BATCH);
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
