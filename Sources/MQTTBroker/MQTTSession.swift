import NIOCore
import Synchronization

/// One accepted connection: its subscriptions, its outgoing queue and the QoS 1 messages it has not
/// acknowledged yet. Packets to the client go through `enqueue`, in order, from any task; one
/// writer task drains them onto the channel (`MQTTBroker.serve`).
final class MQTTSession: Sendable {
    private struct State {
        /// Topic filter → granted QoS.
        var subscriptions = [String: UInt8]()
        /// Outgoing QoS 1 messages by packet id, until the client's PUBACK.
        var inflight = [UInt16: MQTTPublish]()
        var nextPacketID: UInt16 = 1
        /// Packets handed to the writer and not yet written.
        var queued = 0
        /// Incoming QoS 2 messages taken and acknowledged (PUBREC) whose PUBREL has not come.
        var receivedQoS2 = Set<UInt16>()
        var closed = false
    }

    let number: UInt64
    let clientID: String
    let channel: any Channel
    let maxQueued: Int
    private let state = Mutex(State())
    private let outgoing: AsyncStream<MQTTPacket>.Continuation
    let packets: AsyncStream<MQTTPacket>
    /// When the client last sent a packet (uptime nanoseconds).
    private let lastHeard = Atomic<UInt64>(NIODeadline.now().uptimeNanoseconds)

    init(number: UInt64, clientID: String, channel: any Channel, maxQueued: Int) {
        self.number = number
        self.clientID = clientID
        self.channel = channel
        self.maxQueued = maxQueued
        (packets, outgoing) = AsyncStream<MQTTPacket>.makeStream()
    }

    func heard() { lastHeard.store(NIODeadline.now().uptimeNanoseconds, ordering: .relaxed) }

    /// Seconds since the client last sent anything.
    var silence: Double { Double(NIODeadline.now().uptimeNanoseconds &- lastHeard.load(ordering: .relaxed)) / 1e9 }

    /// Queues a packet to the client; `false` (and the connection closed) when the client is too far behind.
    @discardableResult
    func enqueue(_ packet: MQTTPacket) -> Bool {
        let admitted = state.withLock { s -> Bool in
            guard !s.closed else { return false }
            guard s.queued + s.inflight.count < maxQueued else {
                s.closed = true
                return false
            }
            s.queued += 1
            return true
        }
        guard admitted else {
            close()
            return false
        }
        outgoing.yield(packet)
        return true
    }

    /// A message to the client at `qos` (0 or 1): for QoS 1 with the next free packet id, kept until acknowledged.
    @discardableResult
    func send(topic: String, payload: [UInt8], qos: UInt8) -> Bool {
        var message = MQTTPublish(topic: topic, payload: payload, qos: min(qos, 1))
        if message.qos == 1 {
            let id = state.withLock { s -> UInt16? in
                guard !s.closed, s.queued + s.inflight.count < maxQueued else { return nil }
                var id = s.nextPacketID
                while s.inflight[id] != nil { id = id == UInt16.max ? 1 : id + 1 }
                s.nextPacketID = id == UInt16.max ? 1 : id + 1
                return id
            }
            guard let id else {
                close()
                return false
            }
            message.packetID = id
            state.withLock { $0.inflight[id] = message }
        }
        return enqueue(.publish(message))
    }

    func wrote() { state.withLock { $0.queued -= 1 } }

    func acknowledged(_ id: UInt16) { state.withLock { _ = $0.inflight.removeValue(forKey: id) } }

    var subscriptions: [String: UInt8] { state.withLock { $0.subscriptions } }

    /// Adds `filter` unless the client holds `limit` others already; `false` then.
    func subscribe(_ filter: String, qos: UInt8, limit: Int) -> Bool {
        state.withLock { s in
            guard s.subscriptions[filter] != nil || s.subscriptions.count < limit else { return false }
            s.subscriptions[filter] = qos
            return true
        }
    }

    func unsubscribe(_ filter: String) { state.withLock { _ = $0.subscriptions.removeValue(forKey: filter) } }

    /// Records an incoming QoS 2 message as taken, until its PUBREL.
    func receiveQoS2(_ id: UInt16) { state.withLock { _ = $0.receivedQoS2.insert(id) } }

    func hasReceivedQoS2(_ id: UInt16) -> Bool { state.withLock { $0.receivedQoS2.contains(id) } }

    func released(_ id: UInt16) { state.withLock { _ = $0.receivedQoS2.remove(id) } }

    /// Ends the outgoing queue and closes the connection.
    func close() {
        state.withLock { $0.closed = true }
        outgoing.finish()
        channel.close(promise: nil)
    }

    func finish() {
        state.withLock { $0.closed = true }
        outgoing.finish()
    }
}
