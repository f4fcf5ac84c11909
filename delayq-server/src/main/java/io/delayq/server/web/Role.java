package io.delayq.server.web;

/** What a dashboard user may do. */
public enum Role {
  /** Everything: logged in with the full token, or a server without a token (loopback only). */
  FULL("rw"),
  /** Look only: logged in with the read-only token; every action is refused. */
  READ_ONLY("ro");

  private final String code;

  Role(String code) {
    this.code = code;
  }

  /** The role's code in a session cookie. */
  String code() {
    return code;
  }

  static Role ofCode(String code) {
    for (Role role : values()) {
      if (role.code.equals(code)) {
        return role;
      }
    }
    return null;
  }
}
