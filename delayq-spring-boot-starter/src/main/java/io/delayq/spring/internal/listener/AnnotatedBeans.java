package io.delayq.spring.internal.listener;

import io.delayq.spring.PayloadConverter;
import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Proxy;
import java.lang.reflect.Type;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.aop.SpringProxy;
import org.springframework.aop.framework.AopProxyUtils;
import org.springframework.aop.framework.autoproxy.AutoProxyUtils;
import org.springframework.aop.scope.ScopedProxyUtils;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.FactoryBean;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.ResolvableType;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.annotation.AnnotationUtils;
import org.springframework.util.ReflectionUtils;

/**
 * What the {@code @DelayqListener} and {@code @DelayqScheduled} processors share: finding the
 * singletons whose class (the target's, for a proxy) has annotated methods, and the checks of
 * such a method that do not depend on the annotation (the bean's scope, the payload type, how
 * the method is called on the bean).
 */
final class AnnotatedBeans {
  private static final Logger log = LoggerFactory.getLogger(AnnotatedBeans.class);

  private AnnotatedBeans() {}

  /**
   * One bean with annotated methods.
   *
   * @param targetType the bean's own class, behind any proxy
   * @param beanType the bean's declared type, for type variables of a generic bean
   * @param methods the annotated methods, in a fixed order (by signature)
   */
  record Found<A extends Annotation>(String beanName, Object bean, Class<?> targetType, ResolvableType beanType,
      Map<Method, A> methods) {

    /** The method as messages name it: {@code Type.method(Params) of bean 'name'}. */
    String describe(Method method) {
      return AnnotatedBeans.describe(targetType, method, beanName);
    }
  }

  /**
   * Hands each singleton with {@code annotation} on some of its methods to {@code each}; a bean of
   * another scope with such methods fails the start.
   *
   * @param subject what a method is called in messages, from its description
   * @param runs what runs on the bean, as the refusal of a non-singleton says it ("a listener")
   */
  static <A extends Annotation> void forEach(ConfigurableListableBeanFactory beanFactory, Class<A> annotation,
      UnaryOperator<String> subject, String runs, Consumer<Found<A>> each) {
    for (String beanName : beanFactory.getBeanNamesForType(Object.class, true, false)) {
      if (ScopedProxyUtils.isScopedTarget(beanName)) {
        continue;
      }
      Class<?> type;
      try {
        type = targetType(beanFactory, beanName);
      } catch (RuntimeException e) {
        log.debug("could not tell the type of bean '{}'; not looking for @{} methods on it", beanName,
            annotation.getSimpleName(), e);
        continue;
      }
      if (type == null || !AnnotationUtils.isCandidateClass(type, annotation)) {
        continue;
      }
      Map<Method, A> methods = MethodIntrospector.selectMethods(type,
          (MethodIntrospector.MetadataLookup<A>) m -> AnnotatedElementUtils.findMergedAnnotation(m, annotation));
      if (methods.isEmpty()) {
        continue;
      }
      Map<Method, A> sorted = new LinkedHashMap<>();
      methods.entrySet().stream().sorted(Comparator.comparing(e -> e.getKey().toGenericString()))
          .forEach(e -> sorted.put(e.getKey(), e.getValue()));
      checkSingleton(beanFactory, beanName, subject.apply(describe(type, sorted.keySet().iterator().next(), beanName)),
          runs);
      Object bean = beanFactory.getBean(beanName);
      each.accept(new Found<>(beanName, bean, type, declaredType(beanFactory, beanName, type), sorted));
    }
  }

  /**
   * The bean's own class. An auto-proxy creator marks it on the bean's definition; a proxy made
   * by a plain {@code BeanPostProcessor} does not, so, as Spring's {@code @Scheduled} processing
   * does, the proxy instance is asked for its target.
   */
  private static Class<?> targetType(ConfigurableListableBeanFactory beanFactory, String beanName) {
    Class<?> type = AutoProxyUtils.determineTargetClass(beanFactory, beanName);
    if (type != null && (Proxy.isProxyClass(type) || SpringProxy.class.isAssignableFrom(type))
        && beanFactory.containsSingleton(beanName)) {
      Object instance = beanFactory.getSingleton(beanName);
      if (instance != null && !(instance instanceof FactoryBean<?>)) {
        return AopProxyUtils.ultimateTargetClass(instance);
      }
    }
    return type;
  }

  // why: a scoped proxy is a singleton, but each call looks its target up in a scope (a request,
  // a session) that no worker thread ever has, so every job would fail on every attempt
  private static void checkSingleton(ConfigurableListableBeanFactory beanFactory, String beanName, String subject,
      String runs) {
    String scopedTarget = ScopedProxyUtils.getTargetBeanName(beanName);
    boolean scopedProxy = beanFactory.containsBeanDefinition(scopedTarget) && !beanFactory.isSingleton(scopedTarget);
    if (!beanFactory.isSingleton(beanName) || scopedProxy) {
      throw new ListenerDefinitionException(subject, "the bean is not a singleton"
          + (scopedProxy ? " (it is a scoped proxy of a bean of scope '"
              + beanFactory.getMergedBeanDefinition(scopedTarget).getScope() + "')" : "")
          + "; " + runs + " runs on one instance for the application's life, so declare the bean as a singleton");
    }
  }

  /**
   * The bean's type as declared, so that a generic bean made by {@code @Bean Listener<Order>
   * orders()} resolves its type variables; its class when the declaration says less.
   */
  private static ResolvableType declaredType(ConfigurableListableBeanFactory beanFactory, String beanName,
      Class<?> targetType) {
    try {
      ResolvableType declared = beanFactory.getMergedBeanDefinition(beanName).getResolvableType();
      if (declared.hasGenerics() && declared.resolve() == targetType) {
        return declared;
      }
    } catch (RuntimeException e) {
      log.debug("no declared type for bean '{}'", beanName, e);
    }
    return ResolvableType.forClass(targetType);
  }

  /** Refuses a payload type the application's converter cannot read. */
  static void checkReadable(PayloadConverter converter, Type payloadType, String subject) {
    if (payloadType != null && !converter.canRead(payloadType)) {
      throw ListenerDefinitionException.signature(subject, "the application's PayloadConverter ("
          + converter.getClass().getName() + ") cannot read a payload as " + payloadType.getTypeName()
          + " (without a JSON mapper only String and byte[] can be read); add tools.jackson.core:jackson-databind to"
          + " the application, declare a PayloadConverter bean that reads it, or take String or byte[]");
    }
  }

  /**
   * The method to call on the bean (through its proxy, so that the proxy's interceptors run), made
   * accessible; refused when the proxy cannot reach the target's method.
   */
  static Method invocable(Method method, Object bean, String subject) {
    Method invocable;
    try {
      invocable = AopUtils.selectInvocableMethod(method, bean.getClass());
    } catch (IllegalStateException e) {
      throw ListenerDefinitionException.signature(subject, e.getMessage());
    }
    // why: a CGLIB proxy cannot override a final method, so the call runs the target's code on the
    // proxy instance itself, whose fields are never set, and past every interceptor
    int modifiers = invocable.getModifiers();
    if (AopUtils.isCglibProxy(bean) && Modifier.isFinal(modifiers) && !Modifier.isStatic(modifiers)) {
      throw ListenerDefinitionException.withAction(subject, "the method " + method.getName() + " is final, and the"
          + " bean is a CGLIB proxy (for its @Transactional, @Async or other advice): the proxy cannot override a final"
          + " method, so each call would run on the proxy's own empty instance and skip the advice",
          "Remove final from " + method.getName());
    }
    ReflectionUtils.makeAccessible(invocable);
    return invocable;
  }

  static String describe(Class<?> type, Method method, String beanName) {
    String parameters = Arrays.stream(method.getGenericParameterTypes())
        .map(t -> ListenerSignature.shorten(t.getTypeName()))
        .collect(Collectors.joining(", "));
    return type.getSimpleName() + "." + method.getName() + "(" + parameters + ") of bean '" + beanName + "'";
  }
}
