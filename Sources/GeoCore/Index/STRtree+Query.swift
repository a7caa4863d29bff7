extension STRtree {
    /// The elements whose envelopes intersect `envelope` (touching counts), in tree order.
    public func query(_ envelope: Envelope) -> [Element] {
        var found: [Element] = []
        query(envelope) { element in
            found.append(element)
            return true
        }
        return found
    }

    /// Calls `visit` for each element whose envelope intersects `envelope` (touching counts), in
    /// tree order, until `visit` returns `false`.
    public func query(_ envelope: Envelope, _ visit: (Element) throws -> Bool) rethrows {
        guard let root = nodes.indices.last, nodes[root].envelope.intersects(envelope) else { return }
        var stack: [Int] = [root]
        stack.reserveCapacity(nodeCapacity * 8)
        while let index = stack.popLast() {
            let node = nodes[index]
            let children = node.first..<(node.first + node.count)
            if index < leafNodeCount {
                for item in children where itemEnvelopes[item].intersects(envelope) {
                    guard try visit(elements[item]) else { return }
                }
            } else {
                // Pushed in reverse so children are visited in stored order.
                for child in children.reversed() where nodes[child].envelope.intersects(envelope) {
                    stack.append(child)
                }
            }
        }
    }
}
