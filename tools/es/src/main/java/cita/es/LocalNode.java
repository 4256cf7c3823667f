package cita.es;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.elasticsearch.common.logging.LogConfigurator;
import org.elasticsearch.common.settings.Settings;
import org.elasticsearch.env.Environment;
import org.elasticsearch.node.CitaClasspathNode;
import org.elasticsearch.node.Node;
import org.elasticsearch.plugins.Plugin;
import org.elasticsearch.transport.netty4.Netty4Plugin;

/**
 * A single-node Elasticsearch for cita's development and CI, built from the server jar and the
 * Netty4 transport on Maven Central (no distribution download, no Docker).
 *
 * Usage: java ... cita.es.LocalNode HOME [HTTP_PORT]
 *   HOME holds config/, data/, logs/ and tmp/ (cita uses .cita/es). Runs until SIGTERM/SIGINT.
 *
 * Only the standard analyzer is available (analysis-common is a module that is not on Central).
 */
public final class LocalNode {

    private LocalNode() {}

    public static void main(String[] args) throws Exception {
        if (args.length < 1 || args.length > 2) {
            System.err.println("usage: LocalNode HOME [HTTP_PORT]");
            System.exit(2);
        }
        Path home = Path.of(args[0]).toAbsolutePath().normalize();
        String httpPort = args.length > 1 ? args[1] : "9200";
        Path config = home.resolve("config");
        Path data = home.resolve("data");
        Path logs = home.resolve("logs");
        for (Path dir : List.of(config, data, logs)) Files.createDirectories(dir);

        Settings settings = Settings.builder()
            .put("path.home", home.toString())
            .put("path.data", data.toString())
            .put("path.logs", logs.toString())
            .put("cluster.name", "cita-local")
            .put("node.name", "cita-local")
            .put("discovery.type", "single-node")
            .put("network.host", "127.0.0.1")
            .put("http.port", httpPort)
            .put("transport.port", "9300-9399")
            .put("http.type", Netty4Plugin.NETTY_HTTP_TRANSPORT_NAME)
            .put("transport.type", Netty4Plugin.NETTY_TRANSPORT_NAME)
            .put("cluster.routing.allocation.disk.threshold_enabled", false)
            .put("indices.breaker.total.use_real_memory", false)
            // Development node: no reason to keep indices from being created implicitly by a typo.
            .put("action.auto_create_index", false)
            .build();

        // Elasticsearch reads log4j2*.properties from the config dir; ours logs INFO to the console,
        // which start.sh sends to logs/node.out.
        Path log4j = config.resolve("log4j2.properties");
        if (Files.notExists(log4j)) {
            Files.writeString(log4j, String.join("\n",
                "status = error",
                "appender.console.type = Console",
                "appender.console.name = console",
                "appender.console.layout.type = PatternLayout",
                "appender.console.layout.pattern = [%d{ISO8601}][%-5p][%c{1.}] %m%n",
                "rootLogger.level = info",
                "rootLogger.appenderRef.console.ref = console",
                ""));
        }
        Environment environment = new Environment(settings, config);
        LogConfigurator.registerErrorListener();
        LogConfigurator.setNodeName("cita-local");
        LogConfigurator.setClusterName("cita-local");
        LogConfigurator.configure(environment, true);
        List<Class<? extends Plugin>> plugins = List.of(Netty4Plugin.class);
        Node node = new CitaClasspathNode(environment, plugins);

        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                node.close();
                node.awaitClose(30, TimeUnit.SECONDS);
            } catch (IOException | InterruptedException e) {
                e.printStackTrace();
            } finally {
                stopped.countDown();
            }
        }, "cita-es-shutdown"));

        node.start();
        System.out.println("cita-es: node started, http on 127.0.0.1:" + httpPort);
        stopped.await();
    }
}
