/* json.h: a small strict JSON reader (RFC 8259) for the sequence sidecars: the whole text is
 * parsed into a flat array of values, strings decoded, numbers converted, and then looked up by
 * key or index. Limits: JSON_MAX_VALUES values, JSON_MAX_DEPTH nesting, JSON_MAX_TEXT bytes.
 * Duplicate keys, non-finite numbers (1e999), control characters in strings, invalid UTF-8
 * escapes and anything after the top value are errors. No allocation: the document holds
 * everything (a few hundred kilobytes: keep one, not one per frame on the stack of a thread). */
#ifndef UPF_JSON_H
#define UPF_JSON_H

#include <stdbool.h>
#include <stddef.h>

#define JSON_MAX_VALUES 4096
#define JSON_MAX_DEPTH 32
#define JSON_MAX_TEXT (256 * 1024)

typedef enum json_type {
    JSON_NULL,
    JSON_FALSE,
    JSON_TRUE,
    JSON_NUMBER,
    JSON_STRING,
    JSON_ARRAY,
    JSON_OBJECT
} json_type;

typedef struct json_value {
    json_type type;
    int count;          /* arrays and objects: members (an object's members are key strings,
                         * each followed by its value) */
    int next;           /* the index after this value and everything inside it */
    size_t offset;      /* byte offset in the text, for messages */
    double number;
    const char *string; /* decoded, NUL-terminated (may hold a NUL: see length) */
    size_t length;
} json_value;

typedef struct json_doc {
    int count;
    json_value v[JSON_MAX_VALUES];
    char strings[JSON_MAX_TEXT + 1]; /* the decoded strings, each NUL-terminated */
} json_doc;

/* Parses `len` bytes of `text` into `doc` (value 0 is the top value). On failure writes
 * "byte N: what was wrong; expected ..." into err (err_size bytes) and returns false. */
bool json_parse(const char *text, size_t len, json_doc *doc, char *err, size_t err_size);

/* The value of `key` in object `obj`, or -1 (also when obj is not an object). */
int json_get(const json_doc *doc, int obj, const char *key);

/* Element `i` of array `arr`, or -1. */
int json_at(const json_doc *doc, int arr, int i);

/* The name of a type ("number", ...), for messages. */
const char *json_type_name(json_type type);

#endif /* UPF_JSON_H */
