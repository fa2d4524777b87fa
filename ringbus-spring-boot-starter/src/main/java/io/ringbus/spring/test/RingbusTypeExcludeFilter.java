package io.ringbus.spring.test;

import io.ringbus.spring.RingbusListener;
import java.io.IOException;
import org.springframework.boot.test.context.filter.annotation.StandardAnnotationCustomizableTypeExcludeFilter;
import org.springframework.core.type.classreading.MetadataReader;
import org.springframework.core.type.classreading.MetadataReaderFactory;

/**
 * The component filter of {@link RingbusTest}: of the scanned components, keeps those with a
 * {@link RingbusListener} method (and what the annotation's filters say).
 */
final class RingbusTypeExcludeFilter extends StandardAnnotationCustomizableTypeExcludeFilter<RingbusTest> {

    private static final String LISTENER = RingbusListener.class.getName();

    RingbusTypeExcludeFilter(Class<?> testClass) {
        super(testClass);
    }

    @Override
    protected boolean defaultInclude(MetadataReader metadataReader, MetadataReaderFactory metadataReaderFactory)
            throws IOException {
        return metadataReader.getAnnotationMetadata().hasAnnotatedMethods(LISTENER)
                || super.defaultInclude(metadataReader, metadataReaderFactory);
    }
}
