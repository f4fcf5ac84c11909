package io.delayq.server.web;

import gg.jte.ContentType;
import gg.jte.TemplateEngine;
import gg.jte.output.StringOutput;
import java.util.Map;

/**
 * The jte templates of {@code src/main/jte}, compiled into {@code io.delayq.server.web.templates}
 * at build time: rendering needs no compiler, and every {@code ${...}} is escaped for where it
 * stands in the HTML.
 */
final class Templates {
  static final String PACKAGE = "io.delayq.server.web.templates";
  private final TemplateEngine engine =
      TemplateEngine.createPrecompiled(null, ContentType.Html, Templates.class.getClassLoader(), PACKAGE);

  String render(String template, Map<String, Object> params) {
    StringOutput out = new StringOutput(8 * 1024);
    engine.render(template, params, out);
    return out.toString();
  }
}
