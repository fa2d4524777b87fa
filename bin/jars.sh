# Sourced by bin/run, bin/outbox and bin/dist: whether a runnable jar must be built again, so that
# an up-to-date tree starts without Maven. Call from the checkout's root (paths are relative).

# ringbus_modules_of MODULE: the module and every reactor module its pom names (ringbus-*
# artifacts with a directory here, test scope included), recursively.
ringbus_modules_of() {
    local todo=("$1") seen=" " module dep
    while [ ${#todo[@]} -gt 0 ]; do
        module=${todo[0]}
        todo=("${todo[@]:1}")
        case "$seen" in *" $module "*) continue ;; esac
        seen="$seen$module "
        for dep in $(sed -n 's:.*<artifactId>\(ringbus-[a-z0-9-]*\)</artifactId>.*:\1:p' "$module/pom.xml"); do
            if [ -f "$dep/pom.xml" ]; then
                todo+=("$dep")
            fi
        done
    done
    echo "$seen"
}

# ringbus_jar_stale JAR MODULE: true when JAR is missing or older than a file it is built from:
# the root pom, .mvn/, and the pom and src/main of MODULE and of the modules it depends on (a
# deleted file counts too: it changes its directory's time).
ringbus_jar_stale() {
    local jar=$1 module
    [ -f "$jar" ] || return 0
    [ -z "$(find pom.xml .mvn -newer "$jar" -print -quit)" ] || return 0
    for module in $(ringbus_modules_of "$2"); do
        [ -z "$(find "$module/pom.xml" "$module/src/main" -newer "$jar" -print -quit 2>/dev/null)" ] || return 0
    done
    return 1
}
