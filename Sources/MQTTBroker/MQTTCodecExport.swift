// The packets, topics and errors the broker's API speaks in (MQTTPacket, MQTTPublish, MQTTTopic, …),
// for its users without a second import.
@_exported import MQTTCodec
