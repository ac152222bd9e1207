package jsonrpc

// Ended reports whether the connection has ended, so that nothing sent now
// could be answered. Calls under way have failed by the time it is true.
func (c *Conn) Ended() bool {
	c.state.mu.Lock()
	defer c.state.mu.Unlock()
	return c.state.ended != nil
}
