package io.delayq.spring.tx;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.Set;
import javax.sql.DataSource;
import org.springframework.jdbc.datasource.DelegatingDataSource;

/** A real DataSource whose connections fail where {@link Faults} says. */
final class FaultyDataSource extends DelegatingDataSource implements AutoCloseable {
  private static final Set<String> EXECUTIONS = Set.of("execute", "executeQuery", "executeUpdate", "executeBatch", "executeLargeUpdate",
      "executeLargeBatch");

  private final Faults faults;

  FaultyDataSource(DataSource target, Faults faults) {
    super(target);
    this.faults = faults;
  }

  @Override
  public Connection getConnection() throws SQLException {
    if (faults.failConnection()) {
      throw new SQLException("injected: the process stops right after the commit");
    }
    return wrap(super.getConnection());
  }

  @Override
  public void close() throws Exception {
    if (getTargetDataSource() instanceof AutoCloseable closeable) {
      closeable.close();
    }
  }

  private Connection wrap(Connection con) {
    return (Connection) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {Connection.class},
        (proxy, method, args) -> {
          Object result = invoke(con, method, args);
          if (result instanceof PreparedStatement ps && method.getName().equals("prepareStatement")) {
            return wrap(ps, (String) args[0]);
          }
          return result;
        });
  }

  private PreparedStatement wrap(PreparedStatement ps, String sql) {
    return (PreparedStatement) Proxy.newProxyInstance(getClass().getClassLoader(),
        new Class<?>[] {PreparedStatement.class},
        (proxy, method, args) -> {
          if (EXECUTIONS.contains(method.getName()) && faults.failStatement(sql)) {
            throw new SQLException("injected: the process stops at this statement of the after-commit delivery");
          }
          return invoke(ps, method, args);
        });
  }

  private static Object invoke(Object target, java.lang.reflect.Method method, Object[] args) throws Throwable {
    try {
      return method.invoke(target, args);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
  }
}
