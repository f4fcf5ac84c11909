package io.delayq.examples.ordertimeout;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;

/** A shop whose unpaid orders cancel themselves. */
@SpringBootApplication
@EnableConfigurationProperties(OrderSettings.class)
public class OrderTimeoutApplication {
  public static void main(String[] args) {
    SpringApplication.run(OrderTimeoutApplication.class, args);
  }
}
