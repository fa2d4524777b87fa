# Sourced by bin/* and .ci/run: selects a JDK >= 21 and exports JAVA_HOME.
# Order: $JAVA_HOME if it is >= 21, else the newest JDK >= 21 under /usr/lib/jvm
# (or under $RINGBUS_JVM_DIR when set).
ringbus_java_major() {
    "$1/bin/java" -XshowSettings:properties -version 2>&1 \
        | sed -n 's/^ *java.specification.version = \([0-9]*\).*/\1/p'
}

ringbus_select_jdk() {
    if [ -n "${JAVA_HOME:-}" ] && [ -x "$JAVA_HOME/bin/javac" ]; then
        local major
        major=$(ringbus_java_major "$JAVA_HOME")
        if [ -n "$major" ] && [ "$major" -ge 21 ]; then
            return 0
        fi
        echo "ringbus: JAVA_HOME=$JAVA_HOME is Java ${major:-unknown}, need >= 21; looking for another" >&2
    fi
    local best="" best_major=0 dir major jvm_dir="${RINGBUS_JVM_DIR:-/usr/lib/jvm}"
    for dir in "$jvm_dir"/*; do
        [ -x "$dir/bin/javac" ] || continue
        major=$(ringbus_java_major "$dir")
        [ -n "$major" ] || continue
        if [ "$major" -ge 21 ] && [ "$major" -gt "$best_major" ]; then
            best="$dir"
            best_major="$major"
        fi
    done
    if [ -z "$best" ]; then
        echo "ringbus: no JDK >= 21 found (JAVA_HOME=${JAVA_HOME:-unset} unusable, nothing suitable under $jvm_dir)." >&2
        echo "ringbus: install one (e.g. apt-get install openjdk-21-jdk-headless) or set JAVA_HOME." >&2
        return 1
    fi
    export JAVA_HOME="$best"
}

ringbus_select_jdk || exit 1
export PATH="$JAVA_HOME/bin:$PATH"

# The JVM options every start of ringbus-server (and of the outbox, which uses Netty too) adds, so
# that JDK 24+ prints no WARNING: Netty's native transport loads a library (restricted method)
# and its buffers use sun.misc.Unsafe's memory access (allowed by the option JDK 23 introduced).
# Keep in step with the distribution's launchers (deploy/dist/bin/) and the bench's
# ServerKind.RUN_JVM_OPTIONS.
ringbus_quiet_jvm_options() {
    local major
    major=$(sed -n 's/^JAVA_VERSION="\([0-9]*\).*/\1/p' "$JAVA_HOME/release" 2>/dev/null)
    printf '%s' "--enable-native-access=ALL-UNNAMED"
    if [ -n "$major" ] && [ "$major" -ge 23 ]; then
        printf ' %s' "--sun-misc-unsafe-memory-access=allow"
    fi
}
