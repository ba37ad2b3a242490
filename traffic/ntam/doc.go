// Package ntam is HEART's Network-aware Traffic Allocation Module: it takes
// each downstream group's target share (from ATPM or from ARTT's forecasts)
// and each upstream node's part of the traffic, and decides which links carry
// how much.
//
//  1. Links are every upstream node × downstream group pair. A link's cost is
//     its measured one-way delay; an unmeasured link costs the worst measured
//     delay, so it is used only when needed.
//  2. Exact one-dimensional 2-means over the inter-node delays splits the
//     links into fast and slow (same-node links are never slow). Large
//     inputs are bucketed and only the value ranges that can hold the
//     optimum are sorted (kmeans.go).
//  3. HEART removes few slow links together and many one at a time from the
//     slowest, keeping the last configuration a maximum-flow check proves
//     feasible. Both rules end in the same place whenever removing every slow
//     link together is feasible (all of them go), so the filter needs no
//     "few" threshold: when the fast links can carry the traffic every slow
//     link goes; otherwise the slow links that stay are the fastest, as few
//     as the traffic needs, since removing a link never makes the rest more
//     capable. The search for them (search.go) adds slow links from the
//     fastest to the fast ones and carries the maximum flow on until it
//     delivers every share. Links of equal delay are removed together or not
//     at all: nothing orders them (every unmeasured link costs the same worst
//     delay), and the place in a list would decide otherwise. Whether the
//     fast links suffice is found by routing over them, unless they split
//     the nodes into parts that do not balance (as the zones of a cluster
//     do, whose links between them are the slow ones): then routing would
//     only fail, and the search starts at once.
//  4. A minimum-cost flow over the remaining links minimises Σ traffic × delay
//     subject to every upstream node sending its part and every group
//     receiving its share: a transportation problem, solved by the network
//     simplex (package flow). Given the last cycle's routing
//     (Problem.Previous), the simplex starts from the links it used: the
//     same cost, sooner, and the last routing kept among equally cheap ones.
//
// The result gives, per upstream node, the fraction of its traffic for each
// downstream node; a group's traffic is then split equally among its
// replicas (the mesh balances within a locality).
package ntam
