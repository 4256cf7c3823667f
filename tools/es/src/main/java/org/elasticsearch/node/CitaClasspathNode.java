package org.elasticsearch.node;

import java.util.List;

import org.elasticsearch.env.Environment;
import org.elasticsearch.plugins.CitaClasspathPluginsService;
import org.elasticsearch.plugins.Plugin;
import org.elasticsearch.plugins.PluginsLoader;
import org.elasticsearch.plugins.PluginsService;

/**
 * cita's local development node: a Node whose plugins are classes on the classpath.
 *
 * Lives in org.elasticsearch.node only because NodeConstruction, NodeServiceProvider and the
 * Node(NodeConstruction) constructor are package-private. Written for cita; not part of Elasticsearch.
 */
public class CitaClasspathNode extends Node {

    public CitaClasspathNode(Environment environment, List<Class<? extends Plugin>> pluginClasses) {
        super(
            NodeConstruction.prepareConstruction(
                environment,
                CitaClasspathPluginsService.emptyLoader(),
                new ClasspathServiceProvider(pluginClasses),
                false
            )
        );
    }

    private static final class ClasspathServiceProvider extends NodeServiceProvider {
        private final List<Class<? extends Plugin>> pluginClasses;

        ClasspathServiceProvider(List<Class<? extends Plugin>> pluginClasses) {
            this.pluginClasses = List.copyOf(pluginClasses);
        }

        @Override
        PluginsService newPluginService(Environment environment, PluginsLoader pluginsLoader) {
            return new CitaClasspathPluginsService(environment.settings(), environment.configDir(), pluginClasses);
        }
    }
}
