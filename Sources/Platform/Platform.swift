// The one place that picks the C library: every module that needs POSIX calls or libm imports Platform instead of
// repeating the `#if canImport(Glibc)` block. Glibc on Debian and Raspberry Pi OS, Musl for static builds.
#if canImport(Glibc)
@_exported import Glibc
#elseif canImport(Musl)
@_exported import Musl
#elseif canImport(Darwin)
@_exported import Darwin
#endif
