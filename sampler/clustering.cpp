#include "sampler/clustering.hpp"

#include <algorithm>
#include <limits>
#include <random>

namespace livetune {
namespace {

double distance2(const Point& a, const Point& b) {
  double d = 0;
  for (size_t i = 0; i < a.size(); ++i) d += (a[i] - b[i]) * (a[i] - b[i]);
  return d;
}

// Uniform in [0, 1) from the generator's bits: the same numbers with every standard library
// (its distributions are implementation-defined).
double unit(std::mt19937_64& rng) { return double(rng() >> 11) * 0x1.0p-53; }

size_t distinct_count(std::vector<Point> points) {
  std::sort(points.begin(), points.end());
  return size_t(std::unique(points.begin(), points.end()) - points.begin());
}

// k-means++: each further centre drawn with probability proportional to the squared distance
// to the nearest centre so far.
std::vector<Point> spread_centres(const std::vector<Point>& points, size_t k, std::mt19937_64& rng) {
  std::vector<Point> centres{points[rng() % points.size()]};
  std::vector<double> nearest(points.size(), std::numeric_limits<double>::infinity());
  while (centres.size() < k) {
    double total = 0;
    for (size_t i = 0; i < points.size(); ++i) {
      nearest[i] = std::min(nearest[i], distance2(points[i], centres.back()));
      total += nearest[i];
    }
    if (total <= 0) break;
    double target = unit(rng) * total;
    size_t pick = 0;
    while (pick + 1 < points.size() && (target -= nearest[pick]) >= 0) ++pick;
    // Rounding can land the draw on a point already chosen; take the farthest one instead.
    if (nearest[pick] <= 0) pick = size_t(std::max_element(nearest.begin(), nearest.end()) - nearest.begin());
    centres.push_back(points[pick]);
  }
  return centres;
}

// Each point to its nearest centroid (the first of equals); true if any point moved.
bool assign(const std::vector<Point>& points, Clusters& c) {
  bool moved = false;
  c.loss = 0;
  for (size_t i = 0; i < points.size(); ++i) {
    int best = 0;
    double best_d = std::numeric_limits<double>::infinity();
    for (size_t j = 0; j < c.centroids.size(); ++j) {
      const double d = distance2(points[i], c.centroids[j]);
      if (d < best_d) best_d = d, best = int(j);
    }
    moved |= c.of[i] != best;
    c.of[i] = best;
    c.loss += best_d;
  }
  return moved;
}

// Centroids as the means of their points; an emptied cluster takes the point farthest from
// its own centroid, so that k stays k.
void update_centroids(const std::vector<Point>& points, Clusters& c) {
  const size_t dims = points[0].size();
  std::vector<Point> sums(c.centroids.size(), Point(dims, 0.0));
  std::vector<int> counts(c.centroids.size(), 0);
  for (size_t i = 0; i < points.size(); ++i) {
    for (size_t d = 0; d < dims; ++d) sums[size_t(c.of[i])][d] += points[i][d];
    ++counts[size_t(c.of[i])];
  }
  for (size_t j = 0; j < c.centroids.size(); ++j) {
    if (counts[j] > 0) {
      for (size_t d = 0; d < dims; ++d) c.centroids[j][d] = sums[j][d] / counts[j];
      continue;
    }
    size_t far = 0;
    double far_d = -1;
    for (size_t i = 0; i < points.size(); ++i) {
      const double d = distance2(points[i], c.centroids[size_t(c.of[i])]);
      if (counts[size_t(c.of[i])] > 1 && d > far_d) far_d = d, far = i;
    }
    --counts[size_t(c.of[far])];
    c.of[far] = int(j), counts[j] = 1;
    c.centroids[j] = points[far];
  }
}

}  // namespace

std::vector<Point> normalise(const std::vector<Point>& points) {
  if (points.empty()) return {};
  const size_t dims = points[0].size();
  Point lo = points[0], hi = points[0];
  for (const Point& p : points)
    for (size_t d = 0; d < dims; ++d) lo[d] = std::min(lo[d], p[d]), hi[d] = std::max(hi[d], p[d]);
  std::vector<Point> out(points.size(), Point(dims, 0.0));
  for (size_t i = 0; i < points.size(); ++i)
    for (size_t d = 0; d < dims; ++d)
      if (hi[d] > lo[d]) out[i][d] = (points[i][d] - lo[d]) / (hi[d] - lo[d]);
  return out;
}

Clusters kmeans(const std::vector<Point>& points, int k, uint64_t seed, int max_iterations) {
  Clusters c;
  if (points.empty()) return c;
  const size_t clusters = std::clamp<size_t>(size_t(std::max(k, 1)), 1, distinct_count(points));
  std::mt19937_64 rng(seed);
  c.centroids = spread_centres(points, clusters, rng);
  c.of.assign(points.size(), -1);
  for (int it = 0; it < max_iterations; ++it) {
    if (!assign(points, c)) break;
    update_centroids(points, c);
  }
  assign(points, c);
  return c;
}

int knee(const std::vector<double>& loss) {
  if (loss.size() < 3) return 1;
  const double top = *std::max_element(loss.begin(), loss.end());
  const double bottom = *std::min_element(loss.begin(), loss.end());
  if (!(top > bottom)) return 1;
  const double last = double(loss.size() - 1);
  const double y0 = (loss.front() - bottom) / (top - bottom), y1 = (loss.back() - bottom) / (top - bottom);
  int best = 1;
  double best_gap = 0;
  for (size_t i = 1; i + 1 < loss.size(); ++i) {
    const double x = double(i) / last;
    const double gap = y0 + (y1 - y0) * x - (loss[i] - bottom) / (top - bottom);
    if (gap > best_gap) best_gap = gap, best = int(i) + 1;
  }
  return best;
}

Clusters cluster_at_knee(const std::vector<Point>& points, int max_k, uint64_t seed) {
  if (points.empty()) return {};
  const int ks = int(std::min<size_t>(size_t(std::max(max_k, 1)), distinct_count(points)));
  std::vector<Clusters> runs;
  std::vector<double> losses;
  for (int k = 1; k <= ks; ++k) {
    runs.push_back(kmeans(points, k, seed));
    losses.push_back(runs.back().loss);
  }
  return runs[size_t(knee(losses) - 1)];
}

std::vector<int> representatives(const std::vector<Point>& points, const Clusters& c) {
  std::vector<int> out(c.centroids.size(), -1);
  std::vector<double> best(c.centroids.size(), std::numeric_limits<double>::infinity());
  for (size_t i = 0; i < points.size(); ++i) {
    const size_t j = size_t(c.of[i]);
    const double d = distance2(points[i], c.centroids[j]);
    if (d < best[j]) best[j] = d, out[j] = int(i);
  }
  return out;
}

}  // namespace livetune
