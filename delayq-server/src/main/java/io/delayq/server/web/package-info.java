/**
 * The web dashboard that delayq-server serves next to its HTTP API: pages, sessions, assets and
 * their view models. Routes are declared in {@link io.delayq.server.web.DashboardRoutes}; a page is
 * a {@link io.delayq.server.web.PageHandler}; templates are jte files under {@code src/main/jte},
 * compiled at build time. The HTTP server ({@code io.delayq.server.http}) admits each request
 * through {@link io.delayq.server.web.Dashboard} and hands it over as a {@link
 * io.delayq.server.web.WebRequest}.
 */
package io.delayq.server.web;
