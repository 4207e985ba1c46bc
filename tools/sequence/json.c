/* json.c: the strict JSON reader of json.h: recursive descent over RFC 8259's grammar, values
 * appended in document order (a container first, then its members), strings decoded into the
 * document's pool. Reads: the text. Writes: the document, or a message. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sequence/json.h"

typedef struct parser {
    const char *p, *start, *end;
    json_doc *doc;
    size_t pool;
    char *err;
    size_t err_size;
    bool failed;
} parser;

static bool fail(parser *ps, const char *at, const char *fmt, ...)
{
    if (ps->failed)
        return false;
    ps->failed = true;
    int n = snprintf(ps->err, ps->err_size, "byte %zu: ", (size_t)(at - ps->start));
    if (n >= 0 && (size_t)n < ps->err_size) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(ps->err + n, ps->err_size - (size_t)n, fmt, ap);
        va_end(ap);
    }
    return false;
}

static void skip_space(parser *ps)
{
    while (ps->p < ps->end && (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r'))
        ps->p++;
}

static int new_value(parser *ps, json_type type)
{
    json_doc *d = ps->doc;
    if (d->count >= JSON_MAX_VALUES) {
        fail(ps, ps->p, "more than %d values; expected a small sidecar", JSON_MAX_VALUES);
        return -1;
    }
    json_value *v = &d->v[d->count];
    memset(v, 0, sizeof *v);
    v->type = type;
    v->offset = (size_t)(ps->p - ps->start);
    return d->count++;
}

static bool put(parser *ps, char c)
{
    if (ps->pool >= JSON_MAX_TEXT)
        return fail(ps, ps->p, "strings too long");
    ps->doc->strings[ps->pool++] = c;
    return true;
}

static int hex4(const char *p)
{
    int v = 0;
    for (int i = 0; i < 4; i++) {
        char c = p[i];
        int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
                : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
        if (d < 0)
            return -1;
        v = v * 16 + d;
    }
    return v;
}

static bool put_utf8(parser *ps, unsigned cp)
{
    if (cp < 0x80)
        return put(ps, (char)cp);
    if (cp < 0x800)
        return put(ps, (char)(0xc0 | cp >> 6)) && put(ps, (char)(0x80 | (cp & 0x3f)));
    if (cp < 0x10000)
        return put(ps, (char)(0xe0 | cp >> 12)) && put(ps, (char)(0x80 | ((cp >> 6) & 0x3f))) &&
               put(ps, (char)(0x80 | (cp & 0x3f)));
    return put(ps, (char)(0xf0 | cp >> 18)) && put(ps, (char)(0x80 | ((cp >> 12) & 0x3f))) &&
           put(ps, (char)(0x80 | ((cp >> 6) & 0x3f))) && put(ps, (char)(0x80 | (cp & 0x3f)));
}

static bool parse_string(parser *ps)
{
    int i = new_value(ps, JSON_STRING);
    if (i < 0)
        return false;
    ps->p++; /* the opening quote */
    size_t first = ps->pool;
    while (true) {
        if (ps->p >= ps->end)
            return fail(ps, ps->p, "the text ends inside a string; expected '\"'");
        unsigned char c = (unsigned char)*ps->p;
        if (c == '"') {
            ps->p++;
            break;
        }
        if (c < 0x20)
            return fail(ps, ps->p, "control character 0x%02x in a string; expected it escaped", c);
        if (c != '\\') {
            if (!put(ps, (char)c))
                return false;
            ps->p++;
            continue;
        }
        if (ps->p + 1 >= ps->end)
            return fail(ps, ps->p, "the text ends inside an escape");
        char e = ps->p[1];
        static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
        const char *k = e ? strchr(from, e) : NULL;
        if (k) {
            if (!put(ps, to[k - from]))
                return false;
            ps->p += 2;
            continue;
        }
        if (e != 'u')
            return fail(ps, ps->p, "escape '\\%c'; expected one of \\\" \\\\ \\/ \\b \\f \\n \\r "
                        "\\t \\uXXXX", e >= 0x20 && e < 0x7f ? e : '?');
        int cp = ps->end - ps->p >= 6 ? hex4(ps->p + 2) : -1;
        if (cp < 0)
            return fail(ps, ps->p, "'\\u' needs four hex digits");
        ps->p += 6;
        if (cp >= 0xd800 && cp < 0xdc00) { /* a high surrogate: its low one must follow */
            int lo = ps->end - ps->p >= 6 && ps->p[0] == '\\' && ps->p[1] == 'u'
                         ? hex4(ps->p + 2) : -1;
            if (lo < 0xdc00 || lo >= 0xe000)
                return fail(ps, ps->p, "a high surrogate without its low surrogate");
            ps->p += 6;
            cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
        } else if (cp >= 0xdc00 && cp < 0xe000) {
            return fail(ps, ps->p - 6, "a lone low surrogate");
        }
        if (!put_utf8(ps, (unsigned)cp))
            return false;
    }
    json_value *v = &ps->doc->v[i];
    v->length = ps->pool - first;
    if (!put(ps, '\0'))
        return false;
    v->string = ps->doc->strings + first;
    v->next = ps->doc->count;
    return true;
}

static bool parse_number(parser *ps)
{
    const char *s = ps->p;
    const char *q = s;
    if (q < ps->end && *q == '-')
        q++;
    if (q >= ps->end || !(*q >= '0' && *q <= '9'))
        return fail(ps, s, "a number needs a digit here");
    if (*q == '0')
        q++;
    else
        while (q < ps->end && *q >= '0' && *q <= '9')
            q++;
    if (q < ps->end && *q == '.') {
        q++;
        if (q >= ps->end || !(*q >= '0' && *q <= '9'))
            return fail(ps, q, "a digit after the decimal point");
        while (q < ps->end && *q >= '0' && *q <= '9')
            q++;
    }
    if (q < ps->end && (*q == 'e' || *q == 'E')) {
        q++;
        if (q < ps->end && (*q == '+' || *q == '-'))
            q++;
        if (q >= ps->end || !(*q >= '0' && *q <= '9'))
            return fail(ps, q, "a digit in the exponent");
        while (q < ps->end && *q >= '0' && *q <= '9')
            q++;
    }
    char buf[64];
    size_t n = (size_t)(q - s);
    if (n >= sizeof buf)
        return fail(ps, s, "a number of %zu characters; expected at most %zu", n, sizeof buf - 1);
    memcpy(buf, s, n);
    buf[n] = '\0';
    errno = 0;
    double v = strtod(buf, NULL);
    if (!isfinite(v))
        return fail(ps, s, "number %s is out of range", buf);
    int i = new_value(ps, JSON_NUMBER);
    if (i < 0)
        return false;
    ps->doc->v[i].number = v;
    ps->doc->v[i].next = ps->doc->count;
    ps->p = q;
    return true;
}

static bool parse_value(parser *ps, int depth);

static bool parse_container(parser *ps, int depth, bool object)
{
    if (depth >= JSON_MAX_DEPTH)
        return fail(ps, ps->p, "nested deeper than %d", JSON_MAX_DEPTH);
    int i = new_value(ps, object ? JSON_OBJECT : JSON_ARRAY);
    if (i < 0)
        return false;
    ps->p++;
    skip_space(ps);
    int count = 0;
    const char close = object ? '}' : ']';
    if (ps->p < ps->end && *ps->p == close) {
        ps->p++;
    } else {
        while (true) {
            skip_space(ps);
            if (object) {
                if (ps->p >= ps->end || *ps->p != '"')
                    return fail(ps, ps->p, "expected a key in quotes");
                int k = ps->doc->count;
                if (!parse_string(ps))
                    return false;
                const json_value *key = &ps->doc->v[k];
                for (int m = i + 1; m < k; m = ps->doc->v[ps->doc->v[m].next].next)
                    if (ps->doc->v[m].length == key->length &&
                        memcmp(ps->doc->v[m].string, key->string, key->length) == 0)
                        return fail(ps, ps->start + key->offset, "key \"%s\" appears twice",
                                    key->string);
                skip_space(ps);
                if (ps->p >= ps->end || *ps->p != ':')
                    return fail(ps, ps->p, "expected ':' after the key");
                ps->p++;
                skip_space(ps);
            }
            if (!parse_value(ps, depth + 1))
                return false;
            count++;
            skip_space(ps);
            if (ps->p < ps->end && *ps->p == ',') {
                ps->p++;
                continue;
            }
            if (ps->p < ps->end && *ps->p == close) {
                ps->p++;
                break;
            }
            return fail(ps, ps->p, "expected ',' or '%c'", close);
        }
    }
    ps->doc->v[i].count = count;
    ps->doc->v[i].next = ps->doc->count;
    return true;
}

static bool literal(parser *ps, const char *word, json_type type)
{
    size_t n = strlen(word);
    if ((size_t)(ps->end - ps->p) < n || memcmp(ps->p, word, n) != 0)
        return fail(ps, ps->p, "expected a value (object, array, string, number, true, false "
                    "or null)");
    int i = new_value(ps, type);
    if (i < 0)
        return false;
    ps->doc->v[i].next = ps->doc->count;
    ps->p += n;
    return true;
}

static bool parse_value(parser *ps, int depth)
{
    skip_space(ps);
    if (ps->p >= ps->end)
        return fail(ps, ps->p, "the text ends where a value should be");
    switch (*ps->p) {
    case '{': return parse_container(ps, depth, true);
    case '[': return parse_container(ps, depth, false);
    case '"': return parse_string(ps);
    case 't': return literal(ps, "true", JSON_TRUE);
    case 'f': return literal(ps, "false", JSON_FALSE);
    case 'n': return literal(ps, "null", JSON_NULL);
    default: return parse_number(ps);
    }
}

bool json_parse(const char *text, size_t len, json_doc *doc, char *err, size_t err_size)
{
    parser ps = { text, text, text + len, doc, 0, err, err_size, false };
    doc->count = 0;
    if (err_size)
        err[0] = '\0';
    if (len > JSON_MAX_TEXT)
        return fail(&ps, text, "%zu bytes; expected at most %d", len, JSON_MAX_TEXT);
    if (!parse_value(&ps, 0))
        return false;
    skip_space(&ps);
    if (ps.p != ps.end)
        return fail(&ps, ps.p, "text after the value; expected the end");
    return true;
}

int json_get(const json_doc *doc, int obj, const char *key)
{
    if (obj < 0 || obj >= doc->count || doc->v[obj].type != JSON_OBJECT)
        return -1;
    size_t n = strlen(key);
    int m = obj + 1;
    for (int k = 0; k < doc->v[obj].count; k++) {
        const json_value *kv = &doc->v[m];
        if (kv->length == n && memcmp(kv->string, key, n) == 0)
            return m + 1;
        m = doc->v[m + 1].next;
    }
    return -1;
}

int json_at(const json_doc *doc, int arr, int i)
{
    if (arr < 0 || arr >= doc->count || doc->v[arr].type != JSON_ARRAY || i < 0 ||
        i >= doc->v[arr].count)
        return -1;
    int m = arr + 1;
    for (int k = 0; k < i; k++)
        m = doc->v[m].next;
    return m;
}

const char *json_type_name(json_type type)
{
    static const char *const names[] = { "null", "false", "true", "a number", "a string",
                                         "an array", "an object" };
    return (int)type >= 0 && type <= JSON_OBJECT ? names[type] : "unknown";
}
