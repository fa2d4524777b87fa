package io.ringbus.core.internal.filter;

import io.ringbus.core.MessageFilter;
import io.ringbus.core.internal.filter.PolicyJson.NumberToken;
import io.ringbus.core.internal.filter.ValueMatcher.TextOperator.Kind;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * Compiles an SNS filter policy (JSON) into a tree of {@link PolicyCondition}s, once, at
 * subscribe time. The grammar, as docs/routing.md documents it:
 *
 * <pre>
 * policy   = { key: values | key: policy (body scope) | "$or": [policy, policy, ...] , ... }
 * values   = [ value, ... ]                       any one matches (OR); keys combine with AND
 * value    = "text" | number | true | false | null (body only)
 *          | {"prefix": "text"} | {"suffix": "text"} | {"equals-ignore-case": "text"}
 *          | {"anything-but": value | [value, ...] | {"prefix"|"suffix"|"equals-ignore-case": "text"}}
 *          | {"numeric": ["=", n]} | {"numeric": [op, n]} | {"numeric": ["&gt;" | "&gt;=", n, "&lt;" | "&lt;=", n]}
 *          | {"exists": true | false} | {"cidr": "a.b.c.d/len"}
 * </pre>
 *
 * <p>Limits, checked here with an error naming the value: {@value #MAX_POLICY_CHARS} characters
 * of policy text, nesting {@value #MAX_DEPTH} objects and arrays deep, {@value #MAX_KEYS} keys
 * (each key of each {@code $or} choice counts) and {@value #MAX_COMBINATIONS} value
 * combinations (SNS's count and limit: the product of the keys' value counts, summed over
 * {@code $or} choices). Every error is an {@link IllegalArgumentException} whose message starts
 * {@code filter policy: } and names the bad part with its JSON path, e.g.
 * {@code filter policy: unknown operator "prefixx" at $.region[0]}.
 *
 * <p>Threading: each compilation uses its own instance; the static methods are thread-safe.
 */
public final class FilterPolicyCompiler {
    /** The longest policy text accepted, in characters. */
    public static final int MAX_POLICY_CHARS = 16_384;
    /** The deepest nesting of JSON objects and arrays accepted. */
    public static final int MAX_DEPTH = 16;
    /** The most keys a policy may test, counted over every {@code $or} choice. */
    public static final int MAX_KEYS = 64;
    /** The most value combinations a policy may stand for (SNS's limit). */
    public static final int MAX_COMBINATIONS = 150;

    /** Marks an error without a value to show (a JSON {@code null} is a value). */
    private static final Object NO_VALUE = new Object();
    private static final int MAX_SHOWN_CHARS = 80;

    private final boolean body;
    private final BodyPaths paths = new BodyPaths();
    private int keys;

    private FilterPolicyCompiler(boolean body) {
        this.body = body;
    }

    /**
     * Compiles a policy over message headers (SNS's {@code MessageAttributes} scope).
     *
     * @param policyJson the policy
     * @return the filter
     * @throws IllegalArgumentException naming the bad part, for an invalid policy or one over a limit
     */
    public static MessageFilter compileHeaders(String policyJson) {
        FilterPolicyCompiler compiler = new FilterPolicyCompiler(false);
        Compiled compiled = compiler.compile(policyJson);
        return new HeaderPolicyFilter(compiled.root(), compiled.text());
    }

    /**
     * Compiles a policy over the JSON body (SNS's {@code MessageBody} scope).
     *
     * @param policyJson the policy
     * @return the filter
     * @throws IllegalArgumentException naming the bad part, for an invalid policy or one over a limit
     */
    public static MessageFilter compileBody(String policyJson) {
        FilterPolicyCompiler compiler = new FilterPolicyCompiler(true);
        Compiled compiled = compiler.compile(policyJson);
        return new BodyPolicyFilter(compiled.root(), compiler.paths, "body " + compiled.text());
    }

    /**
     * Compiles a filter spec: a policy object over headers, or {@code headers} or {@code body}
     * followed by a policy object ({@code body {"order":{"total":[{"numeric":[">",100]}]}}}).
     * {@link MessageFilter#text()} of a policy filter is such a spec.
     *
     * @param spec the spec
     * @return the filter
     * @throws IllegalArgumentException for a spec that is neither, naming it, or an invalid policy
     */
    public static MessageFilter parse(String spec) {
        if (spec == null) {
            throw new IllegalArgumentException("filter spec must not be null");
        }
        String text = spec.strip();
        if (text.startsWith("{")) {
            return compileHeaders(text);
        }
        int end = 0;
        while (end < text.length() && text.charAt(end) != '{' && !Character.isWhitespace(text.charAt(end))) {
            end++;
        }
        String scope = text.substring(0, end);
        String policy = text.substring(end);
        return switch (scope) {
            case "headers" -> compileHeaders(policy);
            case "body" -> compileBody(policy);
            default -> throw new IllegalArgumentException("filter spec: expected a JSON policy object, optionally"
                    + " after \"headers\" or \"body\": spec=" + shorten(text));
        };
    }

    private record Compiled(PolicyCondition root, String text) {
    }

    private Compiled compile(String json) {
        if (json == null) {
            throw new IllegalArgumentException("filter policy: the policy must not be null");
        }
        if (json.length() > MAX_POLICY_CHARS) {
            throw error(json.length() + " characters exceed the limit of " + MAX_POLICY_CHARS, "$");
        }
        Object tree = PolicyJson.read(json, MAX_DEPTH);
        if (!(tree instanceof Map<?, ?> object)) {
            throw error("a policy must be a JSON object", "$", tree);
        }
        PolicyCondition root = object(object, "$", new String[0]);
        if (root.combinations() > MAX_COMBINATIONS) {
            throw error(root.combinations() + " value combinations exceed the limit of " + MAX_COMBINATIONS
                    + " (the product of the keys' value counts, summed over $or choices)", "$");
        }
        return new Compiled(root, PolicyJson.write(tree));
    }

    private PolicyCondition object(Map<?, ?> object, String path, String[] prefix) {
        if (object.isEmpty()) {
            throw error("an empty policy object: give at least one key", path);
        }
        List<PolicyCondition> parts = new ArrayList<>(object.size());
        for (Map.Entry<?, ?> entry : object.entrySet()) {
            String key = (String) entry.getKey();
            Object value = entry.getValue();
            String keyPath = path + PolicyJson.member(key);
            if ("$or".equals(key)) {
                parts.add(or(value, keyPath, prefix));
            } else if (value instanceof List<?> values) {
                parts.add(key(values, keyPath, append(prefix, key)));
            } else if (value instanceof Map<?, ?> nested && body) {
                parts.add(object(nested, keyPath, append(prefix, key)));
            } else if (value instanceof Map<?, ?>) {
                throw error("a header policy takes an array of values, not an object"
                        + " (nested keys are for body policies)", keyPath, value);
            } else {
                throw error("a key takes an array of values", keyPath, value);
            }
        }
        return parts.size() == 1 ? parts.get(0) : new AllOf(parts.toArray(new PolicyCondition[0]));
    }

    private PolicyCondition or(Object value, String path, String[] prefix) {
        if (!(value instanceof List<?> choices) || choices.size() < 2) {
            throw error("$or takes an array of at least two policy objects", path, value);
        }
        PolicyCondition[] conditions = new PolicyCondition[choices.size()];
        for (int i = 0; i < conditions.length; i++) {
            String choicePath = path + "[" + i + "]";
            if (!(choices.get(i) instanceof Map<?, ?> choice)) {
                throw error("a $or choice must be a policy object", choicePath, choices.get(i));
            }
            conditions[i] = object(choice, choicePath, prefix);
        }
        return new AnyOf(conditions);
    }

    private PolicyCondition key(List<?> values, String path, String[] names) {
        if (++keys > MAX_KEYS) {
            throw error("more keys than the limit of " + MAX_KEYS, path);
        }
        if (values.isEmpty()) {
            throw error("a key needs at least one value", path, values);
        }
        List<ValueMatcher> matchers = new ArrayList<>(values.size());
        List<ValueMatcher> exclusions = new ArrayList<>(1);
        boolean ifPresent = false;
        boolean ifAbsent = false;
        for (int i = 0; i < values.size(); i++) {
            Object value = values.get(i);
            String valuePath = path + "[" + i + "]";
            if (value instanceof Map<?, ?> operator) {
                if (operator.size() != 1) {
                    throw error("an operator object takes exactly one operator, not " + operator.size(),
                            valuePath, operator);
                }
                Map.Entry<?, ?> entry = operator.entrySet().iterator().next();
                String name = (String) entry.getKey();
                Object operand = entry.getValue();
                String operandPath = valuePath + PolicyJson.member(name);
                if ("exists".equals(name)) {
                    if (!(operand instanceof Boolean exists)) {
                        throw error("exists takes true or false", operandPath, operand);
                    }
                    ifPresent |= exists;
                    ifAbsent |= !exists;
                } else if ("anything-but".equals(name)) {
                    exclusions.add(anythingBut(operand, operandPath));
                } else {
                    matchers.add(operator(name, operand, valuePath, operandPath));
                }
            } else if (value instanceof List<?>) {
                throw error("a value cannot be an array (arrays of values do not nest)", valuePath, value);
            } else {
                matchers.add(exact(value, valuePath));
            }
        }
        if (body) {
            paths.add(names);
        }
        return new KeyCondition(names, matchers.toArray(new ValueMatcher[0]), exclusions.toArray(new ValueMatcher[0]),
                ifPresent, ifAbsent, values.size());
    }

    private ValueMatcher exact(Object value, String path) {
        if (value instanceof String text) {
            return new ValueMatcher.ExactText(text);
        }
        if (value instanceof NumberToken number) {
            return new ValueMatcher.ExactNumber(number(number, path));
        }
        if (value instanceof Boolean bool) {
            return new ValueMatcher.ExactBoolean(bool);
        }
        if (value == null && body) {
            return new ValueMatcher.ExactNull();
        }
        throw error("null matches no header value (header values are text; use {\"exists\": false})", path, null);
    }

    private ValueMatcher operator(String name, Object operand, String valuePath, String operandPath) {
        return switch (name) {
            case "prefix" -> new ValueMatcher.TextOperator(Kind.PREFIX, string(name, operand, operandPath));
            case "suffix" -> new ValueMatcher.TextOperator(Kind.SUFFIX, string(name, operand, operandPath));
            case "equals-ignore-case" ->
                    new ValueMatcher.TextOperator(Kind.EQUALS_IGNORE_CASE, string(name, operand, operandPath));
            case "numeric" -> numeric(operand, operandPath);
            case "cidr" -> cidr(operand, operandPath);
            default -> throw error("unknown operator \"" + name + "\"", valuePath);
        };
    }

    private static String string(String operator, Object operand, String path) {
        if (!(operand instanceof String text)) {
            throw error(operator + " takes a string", path, operand);
        }
        return text;
    }

    private ValueMatcher anythingBut(Object operand, String path) {
        if (operand instanceof String || operand instanceof NumberToken) {
            return new ValueMatcher.AnythingBut(new ValueMatcher[] {exact(operand, path)});
        }
        if (operand instanceof List<?> list && !list.isEmpty()) {
            ValueMatcher[] excluded = new ValueMatcher[list.size()];
            for (int i = 0; i < excluded.length; i++) {
                Object element = list.get(i);
                String elementPath = path + "[" + i + "]";
                if (!(element instanceof String || element instanceof NumberToken)) {
                    throw error("anything-but's array takes strings and numbers", elementPath, element);
                }
                excluded[i] = exact(element, elementPath);
            }
            return new ValueMatcher.AnythingBut(excluded);
        }
        if (operand instanceof Map<?, ?> operator && operator.size() == 1) {
            Map.Entry<?, ?> entry = operator.entrySet().iterator().next();
            String name = (String) entry.getKey();
            Kind kind = switch (name) {
                case "prefix" -> Kind.PREFIX;
                case "suffix" -> Kind.SUFFIX;
                case "equals-ignore-case" -> Kind.EQUALS_IGNORE_CASE;
                default -> throw error("anything-but takes prefix, suffix or equals-ignore-case,"
                        + " not \"" + name + "\"", path);
            };
            String text = string(name, entry.getValue(), path + PolicyJson.member(name));
            return new ValueMatcher.AnythingBut(new ValueMatcher[] {new ValueMatcher.TextOperator(kind, text)});
        }
        throw error("anything-but takes a string, a number, a non-empty array of them, or one of"
                + " {\"prefix\": ...}, {\"suffix\": ...}, {\"equals-ignore-case\": ...}", path, operand);
    }

    private static ValueMatcher numeric(Object operand, String path) {
        if (!(operand instanceof List<?> list) || list.isEmpty() || list.size() > 4) {
            throw error("numeric takes an array of one or two bounds such as [\">\", 0, \"<=\", 150]", path, operand);
        }
        double lower = Double.NEGATIVE_INFINITY;
        double upper = Double.POSITIVE_INFINITY;
        boolean lowerInclusive = false;
        boolean upperInclusive = false;
        boolean hasLower = false;
        boolean hasUpper = false;
        for (int i = 0; i < list.size(); i += 2) {
            String operatorPath = path + "[" + i + "]";
            String numberPath = path + "[" + (i + 1) + "]";
            Object operator = list.get(i);
            if (!(operator instanceof String op) || !Arrays.asList("=", "<", "<=", ">", ">=").contains(op)) {
                throw error("unknown numeric operator (=, <, <=, >, >=)", operatorPath, operator);
            }
            if (i + 1 >= list.size() || !(list.get(i + 1) instanceof NumberToken number)) {
                throw error("numeric range needs a number after \"" + op + "\"", numberPath,
                        i + 1 < list.size() ? list.get(i + 1) : NO_VALUE);
            }
            double value = number(number, numberPath);
            switch (op) {
                case "=" -> {
                    if (list.size() != 2) {
                        throw error("\"=\" takes no other bound", operatorPath, operand);
                    }
                    return new ValueMatcher.NumericRange(value, true, value, true);
                }
                case ">", ">=" -> {
                    if (hasLower || hasUpper) {
                        throw error("numeric takes one lower bound (> or >=) and then one upper bound"
                                + " (< or <=)", operatorPath, operator);
                    }
                    hasLower = true;
                    lower = value;
                    lowerInclusive = op.length() == 2;
                }
                default -> {
                    if (hasUpper) {
                        throw error("numeric takes one upper bound (< or <=)", operatorPath, operator);
                    }
                    hasUpper = true;
                    upper = value;
                    upperInclusive = op.length() == 2;
                }
            }
        }
        if (lower > upper || (lower == upper && !(lowerInclusive && upperInclusive))) {
            throw error("numeric range is empty", path, operand);
        }
        return new ValueMatcher.NumericRange(lower, lowerInclusive, upper, upperInclusive);
    }

    private static double number(NumberToken number, String path) {
        if (!Double.isFinite(number.value())) {
            throw error("number out of range", path, number);
        }
        return number.value();
    }

    private static ValueMatcher cidr(Object operand, String path) {
        String block = string("cidr", operand, path);
        int slash = block.indexOf('/');
        if (block.indexOf(':') >= 0) {
            throw error("cidr supports IPv4 blocks only", path, operand);
        }
        long address = slash < 0 ? -1 : ValueMatcher.Ipv4Cidr.parseIpv4(block, 0, slash);
        String length = slash < 0 ? "" : block.substring(slash + 1);
        if (address < 0 || length.isEmpty() || length.length() > 2 || !length.chars().allMatch(Character::isDigit)
                || Integer.parseInt(length) > 32) {
            throw error("cidr takes an IPv4 block such as \"10.0.0.0/24\"", path, operand);
        }
        return new ValueMatcher.Ipv4Cidr((int) address, Integer.parseInt(length));
    }

    private static String[] append(String[] prefix, String key) {
        String[] path = Arrays.copyOf(prefix, prefix.length + 1);
        path[prefix.length] = key;
        return path;
    }

    static IllegalArgumentException error(String what, String path) {
        return error(what, path, NO_VALUE);
    }

    static IllegalArgumentException error(String what, String path, Object value) {
        String shown = value == NO_VALUE ? "" : ": " + shorten(PolicyJson.write(value));
        return new IllegalArgumentException("filter policy: " + what + " at " + path + shown);
    }

    private static String shorten(String text) {
        return text.length() <= MAX_SHOWN_CHARS ? text : text.substring(0, MAX_SHOWN_CHARS) + "...";
    }
}
