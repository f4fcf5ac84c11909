package io.delayq.spring.internal.listener;

import io.delayq.LeasedJob;
import io.delayq.spring.PayloadConversionException;
import io.delayq.spring.PayloadConverter;
import io.delayq.spring.listener.DelayqListenerContainer;
import io.delayq.spring.listener.DelayqListenerRegistry;
import java.lang.reflect.GenericArrayType;
import java.lang.reflect.Method;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.util.Arrays;
import java.util.Objects;
import java.util.stream.Collectors;
import org.springframework.core.MethodParameter;
import org.springframework.core.ResolvableType;

/**
 * What a listener method takes, found once at startup: for each parameter, the job or the
 * payload, and the payload's fully resolved type (type variables of a generic bean replaced by the
 * bean's type arguments), which is what the {@link PayloadConverter} reads into.
 */
final class ListenerSignature {
  private static final int JOB = -1;

  private final Type payloadType;
  /** For each parameter, {@link #JOB} or the index of the payload (always 0). */
  private final int[] kinds;

  private ListenerSignature(Type payloadType, int[] kinds) {
    this.payloadType = payloadType;
    this.kinds = kinds;
  }

  /**
   * Checks the method.
   *
   * @param beanType the bean's declared type, for type variables of a generic bean
   * @throws ListenerDefinitionException naming what is wrong and the accepted signatures
   */
  static ListenerSignature of(Method method, ResolvableType beanType, String listener) {
    if (method.getReturnType() != void.class) {
      throw ListenerDefinitionException.signature(listener, "it returns " + shorten(method.getGenericReturnType().getTypeName())
          + "; a listener returns void, since a job has no one to reply to (schedule a follow-up job instead)");
    }
    int count = method.getParameterCount();
    int[] kinds = new int[count];
    Type payload = null;
    int payloadAt = -1;
    int jobAt = -1;
    for (int i = 0; i < count; i++) {
      MethodParameter parameter = new MethodParameter(method, i);
      Class<?> raw = parameter.getParameterType();
      if (raw == LeasedJob.class) {
        if (jobAt >= 0) {
          throw ListenerDefinitionException.signature(listener,
              "parameters " + (jobAt + 1) + " and " + (i + 1) + " are both LeasedJob; take it once");
        }
        jobAt = i;
        kinds[i] = JOB;
        continue;
      }
      ResolvableType type = ResolvableType.forMethodParameter(parameter, beanType);
      refuseUnsupported(type, parameter, i, listener);
      if (payloadAt >= 0) {
        throw ListenerDefinitionException.signature(listener, "parameters " + (payloadAt + 1) + " ("
            + shorten(payload.getTypeName()) + ") and " + (i + 1) + " (" + shorten(type.toString()) + ") would both be"
            + " the payload; a listener"
            + " takes at most one payload parameter");
      }
      payload = resolved(type);
      payloadAt = i;
      kinds[i] = 0;
    }
    return new ListenerSignature(payload, kinds);
  }

  private static void refuseUnsupported(ResolvableType type, MethodParameter parameter, int index, String listener) {
    Class<?> raw = parameter.getParameterType();
    String where = "parameter " + (index + 1) + " (" + shorten(parameter.getGenericParameterType().getTypeName()) + ")";
    if (raw.getPackageName().equals("io.delayq") || raw.getPackageName().startsWith("io.delayq.internal")
        || raw == PayloadConverter.class || raw == DelayqListenerRegistry.class || raw == DelayqListenerContainer.class) {
      throw ListenerDefinitionException.signature(listener, where + " is not something a listener is given: of"
          + " delayq's types it takes io.delayq.LeasedJob only; inject the others into the bean");
    }
    if (raw == Object.class && type.getType() instanceof Class) {
      throw ListenerDefinitionException.signature(listener, where + " says nothing of what the payload is, and"
          + " JSON would be read into maps; declare String, byte[] or the payload's own type");
    }
    if (type.resolve() == null || type.hasUnresolvableGenerics() || hasUnresolvedVariables(type)) {
      throw ListenerDefinitionException.signature(listener, where + " has a type variable that the bean's type"
          + " does not resolve; declare the bean with its type arguments (a subclass such as class OrderListener"
          + " extends Listener<Order>, or a @Bean method returning Listener<Order>)");
    }
  }

  private static boolean hasUnresolvedVariables(ResolvableType type) {
    if (type.getType() instanceof java.lang.reflect.TypeVariable<?> && type.resolve() == Object.class) {
      return true;
    }
    for (ResolvableType generic : type.getGenerics()) {
      if (hasUnresolvedVariables(generic)) {
        return true;
      }
    }
    return type.isArray() && hasUnresolvedVariables(type.getComponentType());
  }

  /** The payload's type with every variable replaced, as Jackson's type factory needs it. */
  static Type resolved(ResolvableType type) {
    if (type.isArray()) {
      ResolvableType component = type.getComponentType();
      return component.hasGenerics() ? new ResolvedArrayType(resolved(component)) : type.resolve();
    }
    Class<?> raw = type.resolve();
    if (!type.hasGenerics()) {
      return raw;
    }
    Type[] arguments = Arrays.stream(type.getGenerics()).map(ListenerSignature::resolved).toArray(Type[]::new);
    return new ResolvedParameterizedType(raw, arguments);
  }

  /** {@code java.util.List<com.example.Order>} as {@code List<Order>}, for messages. */
  static String shorten(String typeName) {
    return typeName.replaceAll("\\b[a-z][a-z0-9_]*\\.", "");
  }

  /** The type the payload is read into, or {@code null} when the method takes no payload. */
  Type payloadType() {
    return payloadType;
  }

  /**
   * The arguments for one job.
   *
   * @throws PayloadConversionException when the payload cannot be read as the parameter, or reads
   *     as null (JSON {@code null}): a method handed null would fail on every attempt
   */
  Object[] arguments(LeasedJob job, PayloadConverter converter) {
    Object[] args = new Object[kinds.length];
    for (int i = 0; i < kinds.length; i++) {
      args[i] = kinds[i] == JOB ? job : payload(job, converter);
    }
    return args;
  }

  private Object payload(LeasedJob job, PayloadConverter converter) {
    Object value = converter.read(job.payload(), job.payloadIsJson(), payloadType);
    if (value == null) {
      throw new PayloadConversionException("the payload reads as null (JSON null), not a "
          + shorten(payloadType.getTypeName()) + "; a listener is never handed null: schedule a value, or take"
          + " the payload as String or byte[]", null);
    }
    return value;
  }

  private record ResolvedParameterizedType(Class<?> raw, Type[] arguments) implements ParameterizedType {
    @Override
    public Type[] getActualTypeArguments() {
      return arguments.clone();
    }

    @Override
    public Type getRawType() {
      return raw;
    }

    @Override
    public Type getOwnerType() {
      return raw.getDeclaringClass();
    }

    @Override
    public boolean equals(Object other) {
      return other instanceof ParameterizedType that
          && raw.equals(that.getRawType())
          && Objects.equals(getOwnerType(), that.getOwnerType())
          && Arrays.equals(arguments, that.getActualTypeArguments());
    }

    @Override
    public int hashCode() {
      return Arrays.hashCode(arguments) ^ raw.hashCode() ^ Objects.hashCode(getOwnerType());
    }

    @Override
    public String getTypeName() {
      return raw.getTypeName() + Arrays.stream(arguments).map(Type::getTypeName).collect(Collectors.joining(", ", "<", ">"));
    }

    @Override
    public String toString() {
      return getTypeName();
    }
  }

  private record ResolvedArrayType(Type component) implements GenericArrayType {
    @Override
    public Type getGenericComponentType() {
      return component;
    }

    @Override
    public String getTypeName() {
      return component.getTypeName() + "[]";
    }

    @Override
    public String toString() {
      return getTypeName();
    }
  }
}
