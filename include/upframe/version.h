/* upframe/version.h: the library's version numbers (C99, C++).
 *
 * UPF_VERSION_* is the project's release number (semantic versioning). UPF_API_VERSION counts
 * changes to the public API: it goes up by one with every addition or change, and
 * docs/CHANGELOG.md lists what each step added. */
#ifndef UPFRAME_VERSION_H
#define UPFRAME_VERSION_H

#define UPF_VERSION_MAJOR 0
#define UPF_VERSION_MINOR 1
#define UPF_VERSION_PATCH 0
#define UPF_API_VERSION 1

/* UPF_API marks the library's exported functions and objects. */
#if defined(_WIN32) && defined(UPF_BUILDING_LIBRARY)
#define UPF_API __declspec(dllexport)
#elif defined(__GNUC__) || defined(__clang__)
#define UPF_API __attribute__((visibility("default")))
#else
#define UPF_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* The version of the library that is running, as "MAJOR.MINOR.PATCH" (it may differ from the
 * header the caller was compiled with). Thread-safety: safe. */
UPF_API const char *upf_version(void);

/* UPF_API_VERSION of the running library. Thread-safety: safe. */
UPF_API int upf_api_version(void);

#ifdef __cplusplus
}
#endif

#endif /* UPFRAME_VERSION_H */
