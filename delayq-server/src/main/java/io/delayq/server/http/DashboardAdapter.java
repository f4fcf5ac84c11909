package io.delayq.server.http;

import io.delayq.InvalidRequestException;
import io.delayq.server.web.Dashboard;
import io.delayq.server.web.DashboardRoute;
import io.delayq.server.web.WebException;
import io.delayq.server.web.WebRequest;
import io.delayq.server.web.WebResponse;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Joins the dashboard's routes into the server's routing: each {@link DashboardRoute} becomes a
 * {@link Route} whose handler reads the request into a {@link WebRequest} (path parameters
 * decoded, query and form fields parsed), runs the dashboard's handler and turns its {@link
 * WebResponse} into a {@link Response}. Admission (session, CSRF, read-only) happens earlier, in
 * {@code HttpConnection.admit}, before the body is read.
 */
final class DashboardAdapter {
  /** Form bodies of the dashboard's actions are small; anything larger is not one of its forms. */
  static final int FORM_BYTES = 16 * 1024;

  private DashboardAdapter() {}

  static List<Route> routes(Dashboard dashboard) {
    List<Route> routes = new ArrayList<>();
    for (DashboardRoute route : dashboard.routes()) {
      Route.Handler handler = request -> answer(dashboard.handle(route, webRequest(request)));
      routes.add(new Route(route.method(), route.pattern(), Route.sync(handler), false, FORM_BYTES,
          Set.of(Route.ANY_QUERY), route));
    }
    return routes;
  }

  static WebRequest webRequest(Request request) {
    Map<String, String> params = new LinkedHashMap<>();
    for (String name : request.pathNames()) {
      params.put(name, request.path(name));
    }
    return new WebRequest(request.method(), request.rawPath(), request.rawQuery(), params,
        Request.parseQuery(request.rawQuery()), form(request), request.headers()::get);
  }

  /** The fields of an {@code application/x-www-form-urlencoded} body (htmx's default); none without a body. */
  private static Map<String, String> form(Request request) {
    byte[] body = request.body(FORM_BYTES);
    if (body.length == 0) {
      return Map.of();
    }
    String type = request.header("Content-Type");
    String media = type == null ? "" : type.split(";")[0].trim().toLowerCase(Locale.ROOT);
    if (!media.equals("application/x-www-form-urlencoded")) {
      throw new WebException(415, "a dashboard form is sent as application/x-www-form-urlencoded; got '"
          + PathCodec.abbreviate(type == null ? "no Content-Type" : type) + "'");
    }
    String text;
    try {
      text = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(body)).toString();
    } catch (CharacterCodingException e) {
      throw new InvalidRequestException("body", "the form is not UTF-8 text; send it from the dashboard's pages");
    }
    return Request.parseQuery(text);
  }

  static Response answer(WebResponse web) {
    return new Response(web.status(), web.body(), web.contentType(), web.headers());
  }
}
