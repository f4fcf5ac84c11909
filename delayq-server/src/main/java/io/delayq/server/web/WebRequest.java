package io.delayq.server.web;

import java.util.Map;
import java.util.function.Function;

/**
 * One dashboard request as a handler sees it: method, the path below the prefix, its decoded path
 * parameters, query parameters, form fields (of an {@code application/x-www-form-urlencoded} body)
 * and headers. Built by the HTTP server once the request has been admitted.
 */
public final class WebRequest {
  private final String method;
  private final String path;
  private final String rawQuery;
  private final Map<String, String> pathParams;
  private final Map<String, String> query;
  private final Map<String, String> form;
  private final Function<String, String> headers;

  /**
   * @param path the request's path below the prefix, still percent-encoded
   * @param rawQuery the query string as sent, or null
   * @param pathParams the route's path parameters, decoded
   * @param query the query parameters, decoded
   * @param form the form fields, decoded (empty without a form body)
   * @param headers a header's value by name, or null
   */
  public WebRequest(String method, String path, String rawQuery, Map<String, String> pathParams,
      Map<String, String> query, Map<String, String> form, Function<String, String> headers) {
    this.method = method;
    this.path = path;
    this.rawQuery = rawQuery;
    this.pathParams = Map.copyOf(pathParams);
    this.query = Map.copyOf(query);
    this.form = Map.copyOf(form);
    this.headers = headers;
  }

  public String method() {
    return method;
  }

  /** The path below the prefix, as sent (percent-encoded). */
  public String path() {
    return path;
  }

  /** The path and query below the prefix, as sent: where a login should lead back to. */
  public String target() {
    return rawQuery == null || rawQuery.isEmpty() ? path : path + "?" + rawQuery;
  }

  /** A path parameter of the route ({@code queue}, {@code id}, {@code name}), decoded. */
  public String pathParam(String name) {
    String value = pathParams.get(name);
    if (value == null) {
      throw new IllegalStateException("the route has no path parameter {" + name + "}");
    }
    return value;
  }

  /** A query parameter, or null when absent. */
  public String query(String name) {
    return query.get(name);
  }

  /** A query parameter, or null when absent or blank. */
  public String queryOrNull(String name) {
    String value = query.get(name);
    return value == null || value.isBlank() ? null : value;
  }

  /** A form field, or null when absent. */
  public String form(String name) {
    return form.get(name);
  }

  /** A form field, or null when absent or blank. */
  public String formOrNull(String name) {
    String value = form.get(name);
    return value == null || value.isBlank() ? null : value.trim();
  }

  /** A request header, or null. */
  public String header(String name) {
    return headers.apply(name);
  }

  /** Whether htmx sent it (it then wants a fragment, not a page). */
  public boolean fromHtmx() {
    return "true".equalsIgnoreCase(header("HX-Request"));
  }
}
