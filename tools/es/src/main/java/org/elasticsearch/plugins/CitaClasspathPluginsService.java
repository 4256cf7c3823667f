package org.elasticsearch.plugins;

import java.lang.reflect.Constructor;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.elasticsearch.Build;
import org.elasticsearch.common.settings.Settings;

/**
 * cita's local development node: a PluginsService whose plugins are classes already on the
 * classpath, instead of bundles unpacked under plugins/ and modules/ of a distribution.
 *
 * Lives in org.elasticsearch.plugins only because LoadedPlugin and the PluginsLoader constructor
 * are package-private. Written for cita; not part of Elasticsearch.
 */
public class CitaClasspathPluginsService extends PluginsService {

    private final List<LoadedPlugin> classpathPlugins;

    public CitaClasspathPluginsService(Settings settings, Path configDir, List<Class<? extends Plugin>> pluginClasses) {
        super(settings, configDir, emptyLoader());
        List<LoadedPlugin> loaded = new ArrayList<>();
        for (Class<? extends Plugin> pluginClass : pluginClasses) {
            Plugin instance = instantiate(pluginClass, settings, configDir);
            PluginDescriptor descriptor = new PluginDescriptor(
                pluginClass.getName(),
                "loaded from the classpath by cita's local node launcher",
                Build.current().version(),
                Build.current().version(),
                Runtime.version().feature() + "",
                pluginClass.getName(),
                null,
                List.of(),
                false,
                false,
                false,
                false,
                PluginDescriptor.DeploymentTarget.ALL
            );
            loaded.add(new LoadedPlugin(descriptor, instance, pluginClass.getClassLoader()));
        }
        this.classpathPlugins = List.copyOf(loaded);
    }

    /** A loader with no modules and no plugin bundles: everything comes from the classpath. */
    public static PluginsLoader emptyLoader() {
        return new PluginsLoader(Set.of(), Set.of(), Map.of());
    }

    @Override
    protected List<LoadedPlugin> plugins() {
        // Called by the superclass constructor too, before our list exists.
        return classpathPlugins == null ? super.plugins() : classpathPlugins;
    }

    /** Plugins take no arguments, (Settings), or (Settings, Path config dir). */
    private static Plugin instantiate(Class<? extends Plugin> pluginClass, Settings settings, Path configDir) {
        try {
            for (Constructor<?> c : pluginClass.getConstructors()) {
                Class<?>[] types = c.getParameterTypes();
                if (types.length == 2 && types[0] == Settings.class && types[1] == Path.class) {
                    return (Plugin) c.newInstance(settings, configDir);
                }
                if (types.length == 1 && types[0] == Settings.class) {
                    return (Plugin) c.newInstance(settings);
                }
            }
            return pluginClass.getConstructor().newInstance();
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot instantiate plugin " + pluginClass.getName(), e);
        }
    }
}
