#pragma once
// Adaptive sampling (Chameleon, ReLeASE): of many proposed configs only one representative
// per cluster of similar ones is compiled and measured on live calls. Points are config
// features scaled per dimension; the number of clusters is taken at the knee of the k-means
// loss curve, where more clusters stop explaining much more of the spread.
#include <cstdint>
#include <vector>

namespace livetune {

using Point = std::vector<double>;

// Each dimension scaled to [0, 1] over the points; a dimension that does not vary becomes 0.
std::vector<Point> normalise(const std::vector<Point>& points);

struct Clusters {
  std::vector<int> of;           // the cluster of each point
  std::vector<Point> centroids;  // none empty
  double loss = 0;               // sum of squared distances of the points to their centroids
};

// Lloyd's k-means from a k-means++ start drawn with `seed` (the same seed, the same result).
// k is clamped to [1, number of distinct points]; no points, no clusters.
Clusters kmeans(const std::vector<Point>& points, int k, uint64_t seed, int max_iterations = 100);

// The k at the knee of a falling loss curve (loss[i] for k = i + 1): the point farthest below
// the straight line from its first to its last point, both axes scaled to [0, 1] (Kneedle).
// 1 for a curve that never falls below that line.
int knee(const std::vector<double>& loss);

// k-means for k = 1..max_k; the clustering at the knee of their losses.
Clusters cluster_at_knee(const std::vector<Point>& points, int max_k, uint64_t seed);

// For each cluster, the index of its point nearest its centroid.
std::vector<int> representatives(const std::vector<Point>& points, const Clusters& c);

}  // namespace livetune
