package io.delayq.server.web;

/**
 * One page, fragment or action of the dashboard: given the request and the {@link PageContext}
 * (prefix, role, whether the user may write, templates), it answers, usually with rendered HTML.
 *
 * <p>How a page is declared:
 * <ol>
 *   <li>a jte template under {@code delayq-server/src/main/jte/} that starts with {@code @param
 *       io.delayq.server.web.PageContext page} and wraps its content in {@code @template.layout(page
 *       = page, title = "...", name = "workers", content = @`...`)}; {@code name} becomes the
 *       {@code data-page} hook of {@code <main>};
 *   <li>a handler, usually a method of a small page class: read the request, call delayq-core, and
 *       {@code return page.page("workers.jte", Map.of("workers", rows))};
 *   <li>a line in {@link DashboardRoutes#table}: {@code page("/workers", workers::list)} for a GET
 *       page, {@code action("/queues/{queue}/pause", queues::pause)} for a POST action.
 * </ol>
 * The server has already checked the session (and for actions the CSRF headers and that the
 * session may write) before a handler runs. An action answers a flash message, {@link
 * PageContext#flash(int, boolean, String)}, which the layout shows and after which {@code app.js}
 * reloads the page's {@code <main>}. A handler that throws {@link WebException} (or a delayq-core
 * exception, such as {@code JobNotFoundException}) gets an HTML error page or flash message with
 * the exception's message and status.
 */
@FunctionalInterface
public interface PageHandler {
  /** Answers one admitted request. */
  WebResponse handle(WebRequest request, PageContext page) throws Exception;
}
