// Package ntam is HEART's Network-aware Traffic Allocation Module: it takes
// each downstream group's target share (from ATPM or from ARTT's forecasts)
// and each upstream node's part of the traffic, and decides which links carry
// how much.
//
//  1. Links are every upstream node × downstream group pair. A link's cost is
//     its measured one-way delay; an unmeasured link costs the worst measured
//     delay, so it is used only when needed.
//  2. Exact one-dimensional 2-means over the inter-node delays splits the
//     links into fast and slow (same-node links are never slow).
//  3. If the slow links are few (at most FewSlowFraction, default 25%, of the
//     inter-node links) they are removed together. Otherwise, or if removing
//     them together strands a group, they are removed one at a time from the
//     slowest, stopping before the first removal after which a maximum-flow
//     check shows that some group's share could no longer be delivered; that
//     link and the faster ones stay. This keeps the last feasible set.
//  4. A minimum-cost flow over the remaining links minimises Σ traffic × delay
//     subject to every upstream node sending its part and every group
//     receiving its share.
//
// The result gives, per upstream node, the fraction of its traffic for each
// downstream node; a group's traffic is then split equally among its
// replicas (the mesh balances within a locality).
package ntam
