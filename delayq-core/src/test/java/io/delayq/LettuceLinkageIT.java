package io.delayq;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.RedisClient;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.Member;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * delayq-core is compiled against one Lettuce and runs on whichever one the application resolves
 * (a Spring Boot BOM wins over delayq's pin). The delayq-compat modules run the core suite on the
 * older Lettuce releases; this class checks first that the classpath really has the Lettuce the
 * build asked for, and then, for every path of the code and not only those the other tests happen
 * to take, that each Lettuce, Netty and Reactor class, constructor, method and field delayq-core's
 * bytecode refers to exists in the Lettuce on the classpath, as the JVM would link it (name and
 * exact descriptor, looked up through superclasses and interfaces). A reference that does not
 * link is a {@code NoSuchMethodError} waiting for the first call.
 */
class LettuceLinkageIT {
  /** Set by the parent pom's failsafe configuration to the module's {@code lettuce.version}. */
  private static final String EXPECTED = "delayq.lettuce.version";
  private static final List<String> CHECKED_PACKAGES = List.of("io/lettuce/", "io/netty/", "reactor/");

  @Test
  void theClasspathHasTheLettuceThisBuildAsksFor() throws URISyntaxException {
    String expected = System.getProperty(EXPECTED);
    assertThat(expected).as("system property %s (set by the failsafe configuration)", EXPECTED).isNotBlank();
    String implementation = RedisClient.class.getPackage().getImplementationVersion();
    assertThat(implementation).as("Implementation-Version of the lettuce-core jar").isNotNull();
    // The manifest says e.g. "6.8.2.RELEASE/34f8700": the version, then the commit.
    assertThat(implementation.split("/")[0]).isEqualTo(expected);
    Path jar = Path.of(RedisClient.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    assertThat(jar.getFileName().toString()).isEqualTo("lettuce-core-" + expected + ".jar");
  }

  @Test
  void everyLettuceMemberDelayqCoreRefersToLinksAgainstThisLettuce() throws Exception {
    Path core = Path.of(Delayq.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    List<byte[]> classFiles = classFiles(core);
    assertThat(classFiles).as("class files of delayq-core in %s", core).hasSizeGreaterThan(30);

    Set<String> checked = new TreeSet<>();
    Set<String> missing = new TreeSet<>();
    for (byte[] classFile : classFiles) {
      for (Ref ref : references(classFile)) {
        if (CHECKED_PACKAGES.stream().noneMatch(ref.owner::startsWith) || !checked.add(ref.toString())) {
          continue;
        }
        String problem = resolve(ref);
        if (problem != null) {
          missing.add(ref + ": " + problem);
        }
      }
    }
    System.out.println("LettuceLinkageIT: " + checked.size() + " Lettuce/Netty/Reactor references of " + core.getFileName()
        + " checked against lettuce-core " + RedisClient.class.getPackage().getImplementationVersion());
    assertThat(checked).as("references found (the scan read the constant pools)").hasSizeGreaterThan(100);
    assertThat(missing).as("references of delayq-core that do not link against this Lettuce").isEmpty();
  }

  @Test
  void theCheckRefusesWhatThisLettuceLacks() {
    assertThat(resolve(new Ref('M', "io/lettuce/core/RedisClient", "create", "()Lio/lettuce/core/RedisClient;"))).isNull();
    assertThat(resolve(new Ref('M', "io/lettuce/core/RedisClient", "create", "()Ljava/lang/String;")))
        .as("same name, another return type").contains("no such method");
    assertThat(resolve(new Ref('M', "io/lettuce/core/api/StatefulRedisConnection", "noSuchCall", "()V")))
        .contains("no such method");
    assertThat(resolve(new Ref('F', "io/lettuce/core/RedisURI", "DEFAULT_REDIS_PORT", "I"))).isNull();
    assertThat(resolve(new Ref('F', "io/lettuce/core/RedisURI", "DEFAULT_REDIS_PORT", "J"))).contains("no such field");
    assertThat(resolve(new Ref('C', "io/lettuce/core/NoSuchClass", null, null))).contains("class missing");
  }

  /** delayq-core's classes: the reactor's jar in the compat modules, target/classes in core itself. */
  private static List<byte[]> classFiles(Path location) throws IOException {
    List<byte[]> files = new ArrayList<>();
    if (Files.isDirectory(location)) {
      try (Stream<Path> paths = Files.walk(location)) {
        for (Path p : (Iterable<Path>) paths.filter(p -> p.toString().endsWith(".class"))::iterator) {
          files.add(Files.readAllBytes(p));
        }
      }
      return files;
    }
    try (JarFile jar = new JarFile(location.toFile())) {
      for (JarEntry entry : (Iterable<JarEntry>) jar.stream()::iterator) {
        if (entry.getName().endsWith(".class")) {
          try (InputStream in = jar.getInputStream(entry)) {
            files.add(in.readAllBytes());
          }
        }
      }
    }
    return files;
  }

  /** A symbolic reference from a constant pool: a class (name null), a field, or a method. */
  private record Ref(char kind, String owner, String name, String descriptor) {
    @Override
    public String toString() {
      return kind == 'C' ? owner : owner + "." + name + descriptor;
    }
  }

  /** Reads the CONSTANT_Class, Fieldref, Methodref and InterfaceMethodref entries (JVMS 4.4). */
  private static List<Ref> references(byte[] classFile) {
    try (DataInputStream in = new DataInputStream(new java.io.ByteArrayInputStream(classFile))) {
      if (in.readInt() != 0xCAFEBABE) {
        throw new IllegalStateException("not a class file");
      }
      in.readUnsignedShort();
      in.readUnsignedShort();
      int count = in.readUnsignedShort();
      int[] tags = new int[count];
      int[] first = new int[count];
      int[] second = new int[count];
      String[] utf8 = new String[count];
      for (int i = 1; i < count; i++) {
        int tag = in.readUnsignedByte();
        tags[i] = tag;
        switch (tag) {
          case 1 -> utf8[i] = in.readUTF();
          case 3, 4 -> in.readInt();
          case 5, 6 -> {
            in.readLong();
            i++; // a long or double takes two entries
          }
          case 7, 8, 16, 19, 20 -> first[i] = in.readUnsignedShort();
          case 9, 10, 11, 12, 17, 18 -> {
            first[i] = in.readUnsignedShort();
            second[i] = in.readUnsignedShort();
          }
          case 15 -> {
            in.readUnsignedByte();
            first[i] = in.readUnsignedShort();
          }
          default -> throw new IllegalStateException("constant pool tag " + tag + " at entry " + i);
        }
      }
      List<Ref> refs = new ArrayList<>();
      for (int i = 1; i < count; i++) {
        if (tags[i] == 7) {
          String name = utf8[first[i]];
          if (!name.startsWith("[")) {
            refs.add(new Ref('C', name, null, null));
          }
        } else if (tags[i] == 9 || tags[i] == 10 || tags[i] == 11) {
          String owner = utf8[first[first[i]]];
          int nameAndType = second[i];
          refs.add(new Ref(tags[i] == 9 ? 'F' : 'M', owner, utf8[first[nameAndType]], utf8[second[nameAndType]]));
        }
      }
      return refs;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Null when the reference links as the JVM would resolve it; else what is wrong. */
  private static String resolve(Ref ref) {
    Class<?> owner;
    try {
      owner = Class.forName(ref.owner.replace('/', '.'), false, LettuceLinkageIT.class.getClassLoader());
    } catch (ClassNotFoundException | LinkageError e) {
      return "class missing (" + e + ")";
    }
    if (ref.kind == 'C') {
      return Modifier.isPublic(owner.getModifiers()) ? null : "class is not public";
    }
    Member member = ref.kind == 'F' ? findField(owner, ref) : findMethod(owner, ref);
    if (member == null) {
      return "no such " + (ref.kind == 'F' ? "field" : "method") + " in " + owner.getName() + " or its supertypes";
    }
    int modifiers = member.getModifiers();
    // why: delayq's classes subclass none of Lettuce's, so anything it calls must be public
    return Modifier.isPublic(modifiers) || Modifier.isProtected(modifiers) ? null : "not public: " + member;
  }

  private static Member findField(Class<?> owner, Ref ref) {
    for (Class<?> type : supertypes(owner)) {
      for (Field field : type.getDeclaredFields()) {
        if (field.getName().equals(ref.name) && descriptor(field.getType()).equals(ref.descriptor)) {
          return field;
        }
      }
    }
    return null;
  }

  private static Member findMethod(Class<?> owner, Ref ref) {
    if (ref.name.equals("<init>")) {
      for (Constructor<?> constructor : owner.getDeclaredConstructors()) {
        if (descriptor(constructor.getParameterTypes(), void.class).equals(ref.descriptor)) {
          return constructor;
        }
      }
      return null;
    }
    for (Class<?> type : supertypes(owner)) {
      for (Method method : type.getDeclaredMethods()) {
        if (method.getName().equals(ref.name)
            && descriptor(method.getParameterTypes(), method.getReturnType()).equals(ref.descriptor)) {
          return method;
        }
      }
    }
    return null;
  }

  /** The class, its superclasses, then every interface they implement (JVMS 5.4.3.3 order, roughly). */
  private static List<Class<?>> supertypes(Class<?> owner) {
    List<Class<?>> order = new ArrayList<>();
    for (Class<?> c = owner; c != null; c = c.getSuperclass()) {
      order.add(c);
    }
    Set<Class<?>> seen = new HashSet<>(order);
    Deque<Class<?>> interfaces = new ArrayDeque<>();
    for (Class<?> c : List.copyOf(order)) {
      interfaces.addAll(List.of(c.getInterfaces()));
    }
    while (!interfaces.isEmpty()) {
      Class<?> i = interfaces.poll();
      if (seen.add(i)) {
        order.add(i);
        interfaces.addAll(List.of(i.getInterfaces()));
      }
    }
    if (owner.isInterface()) {
      order.add(Object.class);
    }
    return order;
  }

  private static String descriptor(Class<?>[] parameters, Class<?> result) {
    StringBuilder text = new StringBuilder("(");
    for (Class<?> parameter : parameters) {
      text.append(descriptor(parameter));
    }
    return text.append(')').append(descriptor(result)).toString();
  }

  private static String descriptor(Class<?> type) {
    if (type.isArray()) {
      return type.getName().replace('.', '/');
    }
    if (type.isPrimitive()) {
      return switch (type.getName()) {
        case "int" -> "I";
        case "long" -> "J";
        case "boolean" -> "Z";
        case "byte" -> "B";
        case "char" -> "C";
        case "short" -> "S";
        case "float" -> "F";
        case "double" -> "D";
        default -> "V";
      };
    }
    return "L" + type.getName().replace('.', '/') + ";";
  }
}
