// Package redisconn connects to Redis for the parts of mcpdecl that share
// state between replicas (the rate limits and the result cache): a Redis
// URL read without ever printing its password, a pool of connections, and
// requests bounded in time whose errors name Redis by its address.
package redisconn
