#pragma once
// Small fixed-size vectors and matrices, templated on the scalar (float in kernels, double for the
// finite-difference oracle). Matrices are row-major: m[row][col].
#include <cmath>

#include "radiant/core/hd.hpp"

namespace radiant {

template <class T>
struct Vec2 {
    T x{}, y{};
    RADIANT_HD T& operator[](int i) { return i == 0 ? x : y; }
    RADIANT_HD const T& operator[](int i) const { return i == 0 ? x : y; }
};

template <class T>
struct Vec3 {
    T x{}, y{}, z{};
    RADIANT_HD T& operator[](int i) { return i == 0 ? x : (i == 1 ? y : z); }
    RADIANT_HD const T& operator[](int i) const { return i == 0 ? x : (i == 1 ? y : z); }
};

template <class T>
struct Vec4 {
    T x{}, y{}, z{}, w{};
    RADIANT_HD T& operator[](int i) { return i == 0 ? x : (i == 1 ? y : (i == 2 ? z : w)); }
    RADIANT_HD const T& operator[](int i) const { return i == 0 ? x : (i == 1 ? y : (i == 2 ? z : w)); }
};

// Symmetric 2×2 matrix [[a, b], [b, c]]: 2D covariances and conics.
template <class T>
struct Sym2 {
    T a{}, b{}, c{};
};

template <class T>
struct Mat3 {
    T m[3][3]{};
    RADIANT_HD T* operator[](int r) { return m[r]; }
    RADIANT_HD const T* operator[](int r) const { return m[r]; }
    RADIANT_HD static Mat3 identity() {
        Mat3 r;
        r.m[0][0] = r.m[1][1] = r.m[2][2] = T(1);
        return r;
    }
    RADIANT_HD static Mat3 diagonal(Vec3<T> d) {
        Mat3 r;
        r.m[0][0] = d.x;
        r.m[1][1] = d.y;
        r.m[2][2] = d.z;
        return r;
    }
};

// --- Vec2 ---
template <class T>
RADIANT_HD Vec2<T> operator+(Vec2<T> a, Vec2<T> b) {
    return {a.x + b.x, a.y + b.y};
}
template <class T>
RADIANT_HD Vec2<T> operator-(Vec2<T> a, Vec2<T> b) {
    return {a.x - b.x, a.y - b.y};
}
template <class T>
RADIANT_HD Vec2<T> operator*(T s, Vec2<T> a) {
    return {s * a.x, s * a.y};
}

// --- Vec3 ---
template <class T>
RADIANT_HD Vec3<T> operator+(Vec3<T> a, Vec3<T> b) {
    return {a.x + b.x, a.y + b.y, a.z + b.z};
}
template <class T>
RADIANT_HD Vec3<T> operator-(Vec3<T> a, Vec3<T> b) {
    return {a.x - b.x, a.y - b.y, a.z - b.z};
}
template <class T>
RADIANT_HD Vec3<T> operator-(Vec3<T> a) {
    return {-a.x, -a.y, -a.z};
}
template <class T>
RADIANT_HD Vec3<T> operator*(T s, Vec3<T> a) {
    return {s * a.x, s * a.y, s * a.z};
}
template <class T>
RADIANT_HD Vec3<T> operator*(Vec3<T> a, Vec3<T> b) {
    return {a.x * b.x, a.y * b.y, a.z * b.z};
}
template <class T>
RADIANT_HD Vec3<T>& operator+=(Vec3<T>& a, Vec3<T> b) {
    a.x += b.x;
    a.y += b.y;
    a.z += b.z;
    return a;
}
template <class T>
RADIANT_HD T dot(Vec3<T> a, Vec3<T> b) {
    return a.x * b.x + a.y * b.y + a.z * b.z;
}
template <class T>
RADIANT_HD Vec3<T> cross(Vec3<T> a, Vec3<T> b) {
    return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
template <class T>
RADIANT_HD T length(Vec3<T> a) {
    return std::sqrt(dot(a, a));
}
template <class T>
RADIANT_HD Vec3<T> normalize(Vec3<T> a) {
    return (T(1) / length(a)) * a;
}

// d normalize(a) / da applied to v: (v − n (n·v)) / |a|.
template <class T>
RADIANT_HD Vec3<T> normalize_vjp(Vec3<T> a, Vec3<T> v_n) {
    T inv_len = T(1) / length(a);
    Vec3<T> n = inv_len * a;
    return inv_len * (v_n - dot(n, v_n) * n);
}

// --- Vec4 ---
template <class T>
RADIANT_HD T dot(Vec4<T> a, Vec4<T> b) {
    return a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w;
}

// --- Mat3 ---
template <class T>
RADIANT_HD Mat3<T> operator*(const Mat3<T>& a, const Mat3<T>& b) {
    Mat3<T> r;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            r.m[i][j] = a.m[i][0] * b.m[0][j] + a.m[i][1] * b.m[1][j] + a.m[i][2] * b.m[2][j];
    return r;
}
template <class T>
RADIANT_HD Mat3<T> operator+(const Mat3<T>& a, const Mat3<T>& b) {
    Mat3<T> r;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) r.m[i][j] = a.m[i][j] + b.m[i][j];
    return r;
}
template <class T>
RADIANT_HD Mat3<T> operator*(T s, const Mat3<T>& a) {
    Mat3<T> r;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) r.m[i][j] = s * a.m[i][j];
    return r;
}
template <class T>
RADIANT_HD Vec3<T> operator*(const Mat3<T>& a, Vec3<T> v) {
    return {a.m[0][0] * v.x + a.m[0][1] * v.y + a.m[0][2] * v.z,
            a.m[1][0] * v.x + a.m[1][1] * v.y + a.m[1][2] * v.z,
            a.m[2][0] * v.x + a.m[2][1] * v.y + a.m[2][2] * v.z};
}
template <class T>
RADIANT_HD Mat3<T> transpose(const Mat3<T>& a) {
    Mat3<T> r;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) r.m[i][j] = a.m[j][i];
    return r;
}
template <class T>
RADIANT_HD Mat3<T> outer(Vec3<T> a, Vec3<T> b) {
    Mat3<T> r;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) r.m[i][j] = a[i] * b[j];
    return r;
}

template <class U, class T>
RADIANT_HD Vec3<U> cast(Vec3<T> v) {
    return {U(v.x), U(v.y), U(v.z)};
}
template <class U, class T>
RADIANT_HD Mat3<U> cast(const Mat3<T>& a) {
    Mat3<U> r;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) r.m[i][j] = U(a.m[i][j]);
    return r;
}

}  // namespace radiant

namespace radiant {
template <class U = double, class T>
RADIANT_HD Vec4<U> cast_quat(Vec4<T> q) {
    return {U(q.x), U(q.y), U(q.z), U(q.w)};
}
}  // namespace radiant
